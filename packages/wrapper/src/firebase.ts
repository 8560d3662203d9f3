// The Firebase entry: one HTTPS function (firebase-functions v2 onRequest) hosting the router.
// Bundled by scripts/build-functions.mjs into functions/index.js; firebase.json points there.
import { defineSecret } from 'firebase-functions/params';
import { onRequest } from 'firebase-functions/v2/https';
import { lastForwardedFor } from './client-ip.js';
import { loadWrapperConfig, WrapperConfigError } from './config.js';
import { createWrapperLogger } from './logger.js';
import { createRouter, type WrapperRouter } from './router.js';

const MAILSVC_API_KEY = defineSecret('MAILSVC_API_KEY');

let router: WrapperRouter | undefined;
const log = createWrapperLogger('info');

export const mailsvc = onRequest(
  {
    region: 'europe-west2',
    secrets: [MAILSVC_API_KEY],
    // Browsers call it without Google credentials; access control is Origin + App Check + limits.
    invoker: 'public',
    // Bounds how far the per-instance rate limits multiply.
    maxInstances: 10,
  },
  async (req, res) => {
    if (!router) {
      try {
        // Read at the first request, not at load: the secret is not there while deploying.
        router = createRouter({ config: loadWrapperConfig() });
      } catch (err) {
        if (!(err instanceof WrapperConfigError)) throw err;
        log.error({ problems: err.problems.map((p) => `${p.key} ${p.message}`) }, 'wrapper misconfigured');
        res.status(500).json({
          ok: false,
          error: { code: 'internal', message: 'The wrapper is not configured. See its logs.' },
        });
        return;
      }
    }
    // rawBody is the untouched request body: the router parses it itself, the same way the
    // standalone server does, whatever body parser ran before.
    const body: Buffer | undefined =
      req.rawBody ??
      (typeof req.body === 'string'
        ? Buffer.from(req.body)
        : req.body
          ? Buffer.from(JSON.stringify(req.body))
          : undefined);
    const out = await router.handle({
      method: req.method,
      path: req.originalUrl || req.url,
      headers: req.headers,
      body,
      // Not req.ip: with Express's trust proxy on, that is the first X-Forwarded-For entry, which
      // the caller chooses.
      ip: lastForwardedFor(req.headers['x-forwarded-for']) ?? req.socket.remoteAddress ?? 'unknown',
    });
    res.status(out.status).set(out.headers).send(out.body);
  },
);
