// Firebase App Check. onRequest has no enforcement of its own, so the router verifies the
// X-Firebase-AppCheck header itself when MAILSVC_REQUIRE_APP_CHECK=true.
//
// The verifier is firebase-admin's (its getAppCheck().verifyToken). firebase-admin is an optional
// peer dependency of the wrapper, not part of `npm install`: with its optional Google Cloud
// clients it is ~250 packages that a wrapper without App Check never loads. The Firebase entry
// (packages/wrapper/firebase/) has it; a standalone wrapper that requires App Check needs it
// installed beside it (`npm install firebase-admin@<the version in package.json's
// peerDependencies>`) and says so at start-up otherwise (loadFirebaseAdmin).

export interface AppCheckResult {
  appId: string;
  /** Set when verified with consume: true and the token had been used before. */
  alreadyConsumed?: boolean;
}

/** Resolves for a valid token; rejects for an invalid, expired or foreign one. */
export type AppCheckVerifier = (token: string, opts: { consume: boolean }) => Promise<AppCheckResult>;

export const APP_CHECK_HEADER = 'x-firebase-appcheck';
const APP_NAME = 'mailsvc-wrapper';

/** What the verifier uses of firebase-admin: an app, and its App Check service. */
export interface FirebaseAdminApp {
  readonly name: string;
}
export interface FirebaseAdmin {
  getApps(): FirebaseAdminApp[];
  initializeApp(options: { projectId: string } | undefined, name: string): FirebaseAdminApp;
  getAppCheck(app: FirebaseAdminApp): {
    verifyToken(
      token: string,
      options?: { consume: true },
    ): Promise<{ appId: string; alreadyConsumed?: boolean | undefined }>;
  };
}

export class FirebaseAdminMissingError extends Error {
  constructor() {
    super(
      'MAILSVC_REQUIRE_APP_CHECK=true needs firebase-admin, which `npm install` leaves out: install the version named in packages/wrapper/package.json (peerDependencies), e.g. `npm install firebase-admin@13.9.0`.',
    );
  }
}

/** firebase-admin's app and App Check modules, from wherever the host program installed them. */
export async function loadFirebaseAdmin(): Promise<FirebaseAdmin> {
  // Specifiers in variables: the TypeScript build does not need firebase-admin's types, and the
  // Firebase bundle keeps it external (Cloud Build installs it beside the function).
  const appModule = 'firebase-admin/app';
  const appCheckModule = 'firebase-admin/app-check';
  try {
    import.meta.resolve(appModule);
  } catch {
    throw new FirebaseAdminMissingError();
  }
  const [app, appCheck] = await Promise.all([import(appModule), import(appCheckModule)]);
  return { getApps: app.getApps, initializeApp: app.initializeApp, getAppCheck: appCheck.getAppCheck };
}

/**
 * The real verifier: firebase-admin's getAppCheck().verifyToken, on a named app so it does not
 * clash with an app the host program initialised. firebase-admin is loaded on first use (or
 * given, as the Firebase entry and the tests do), so a wrapper without App Check never loads it.
 */
export function firebaseAppCheckVerifier(
  opts: {
    projectId?: string | undefined;
    app?: FirebaseAdminApp;
    admin?: FirebaseAdmin | (() => Promise<FirebaseAdmin>);
  } = {},
): AppCheckVerifier {
  let appCheck: Promise<ReturnType<FirebaseAdmin['getAppCheck']>> | undefined;
  const load = async () => {
    const admin =
      typeof opts.admin === 'function' ? await opts.admin() : (opts.admin ?? (await loadFirebaseAdmin()));
    const app =
      opts.app ??
      admin.getApps().find((a) => a.name === APP_NAME) ??
      admin.initializeApp(opts.projectId ? { projectId: opts.projectId } : undefined, APP_NAME);
    return admin.getAppCheck(app);
  };
  return async (token, { consume }) => {
    appCheck ??= load().catch((err: unknown) => {
      appCheck = undefined;
      throw err;
    });
    const result = await (await appCheck).verifyToken(token, consume ? { consume: true } : undefined);
    return {
      appId: result.appId,
      ...(result.alreadyConsumed !== undefined && { alreadyConsumed: result.alreadyConsumed }),
    };
  };
}
