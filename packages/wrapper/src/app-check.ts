// Firebase App Check. onRequest has no enforcement of its own, so the router verifies the
// X-Firebase-AppCheck header itself when MAILSVC_REQUIRE_APP_CHECK=true.

export interface AppCheckResult {
  appId: string;
  /** Set when verified with consume: true and the token had been used before. */
  alreadyConsumed?: boolean;
}

/** Resolves for a valid token; rejects for an invalid, expired or foreign one. */
export type AppCheckVerifier = (token: string, opts: { consume: boolean }) => Promise<AppCheckResult>;

export const APP_CHECK_HEADER = 'x-firebase-appcheck';
const APP_NAME = 'mailsvc-wrapper';

/**
 * The real verifier: firebase-admin's getAppCheck().verifyToken, on a named app so it does not
 * clash with an app the host program initialised. firebase-admin is loaded on first use, so a
 * wrapper without App Check never loads it.
 */
export function firebaseAppCheckVerifier(
  opts: { projectId?: string | undefined; app?: import('firebase-admin/app').App } = {},
): AppCheckVerifier {
  let appCheck: Promise<import('firebase-admin/app-check').AppCheck> | undefined;
  const load = async () => {
    const { getApps, initializeApp } = await import('firebase-admin/app');
    const { getAppCheck } = await import('firebase-admin/app-check');
    const app =
      opts.app ??
      getApps().find((a) => a.name === APP_NAME) ??
      initializeApp(opts.projectId ? { projectId: opts.projectId } : undefined, APP_NAME);
    return getAppCheck(app);
  };
  return async (token, { consume }) => {
    appCheck ??= load();
    const result = await (await appCheck).verifyToken(token, consume ? { consume: true } : undefined);
    return {
      appId: result.appId,
      ...(result.alreadyConsumed !== undefined && { alreadyConsumed: result.alreadyConsumed }),
    };
  };
}
