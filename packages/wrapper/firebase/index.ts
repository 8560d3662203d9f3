// The Firebase entry: one HTTPS function (firebase-functions v2 onRequest) hosting the router.
// Bundled by scripts/build-functions.mjs into functions/index.js; firebase.json points there.
// firebase-functions and firebase-admin come from this folder's own package.json (the Firebase
// kit, installed by scripts/install-firebase-kit.mjs), not from `npm install` of the repository.
import { getApps, initializeApp } from 'firebase-admin/app';
import { getAppCheck } from 'firebase-admin/app-check';
import { defineSecret } from 'firebase-functions/params';
import { onRequest } from 'firebase-functions/v2/https';
import type { FirebaseAdmin } from '../src/app-check.js';
import { createFirebaseHandler } from '../src/firebase-handler.js';

const MAILSVC_API_KEY = defineSecret('MAILSVC_API_KEY');

const firebaseAdmin = { getApps, initializeApp, getAppCheck } as unknown as FirebaseAdmin;

export const mailsvc = onRequest(
  {
    region: 'europe-west2',
    secrets: [MAILSVC_API_KEY],
    // Browsers call it without Google credentials; access control is Origin + App Check + limits.
    invoker: 'public',
    // Bounds how far the limits multiply when they are counted per instance (no MAILSVC_REDIS_URL).
    maxInstances: 10,
  },
  createFirebaseHandler({ router: { firebaseAdmin } }),
);
