// The only module of the wrapper that reads process.env. Every key is declared once with its
// type, default and description; the README's settings table is checked against this table.
import { isLoopbackName } from '@mailsvc/contract/http-node';

import {
  bool,
  httpUrl,
  int,
  logLevel,
  type Parser,
  readSettings,
  redisUrl,
  type Setting,
  type SettingsOf,
  SettingValueError,
  str,
} from '@mailsvc/contract/settings';

/** `security` (consume on security templates only), or true/false for every route. */
const consumeSetting: Parser<'security' | boolean> = (raw) => {
  if (raw.trim().toLowerCase() === 'security') return 'security';
  try {
    return bool(raw);
  } catch {
    throw new SettingValueError('must be security, true or false');
  }
};

/**
 * Host names compared exactly with a link's host: lowercase, ASCII (punycode for IDN), no scheme,
 * port, path or wildcard. `new URL` gives hosts in that form, so a listed host that is not in it
 * could never match.
 */
export const parseLinkHosts: Parser<readonly string[]> = (raw) => {
  const out: string[] = [];
  for (const item of raw.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    let host: string | undefined;
    try {
      host = new URL(`https://${item}/`).host;
    } catch {}
    const isHostName = host === item && /^[a-z0-9.-]+$/.test(item) && !item.includes('..');
    if (!isHostName)
      throw new SettingValueError(
        `has ${item}, which is not a lowercase host name such as links.example.com (no scheme, port, path or wildcard; IDN in punycode)`,
      );
    out.push(item);
  }
  return Object.freeze([...new Set(out)]);
};

/**
 * Exact origins, scheme://host[:port], as browsers send them in `Origin`: no wildcard, no path,
 * no `null`. A default port is dropped (https://a.example:443 → https://a.example), like browsers do.
 */
export const parseOrigins: Parser<readonly string[]> = (raw) => {
  const out: string[] = [];
  for (const item of raw.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    if (item.includes('*')) throw new SettingValueError(`has a wildcard (${item}); list exact origins`);
    let u: URL;
    try {
      u = new URL(item);
    } catch {
      throw new SettingValueError(`has ${item}, which is not an origin such as https://app.example.com`);
    }
    const isOriginOnly =
      (u.protocol === 'http:' || u.protocol === 'https:') &&
      u.username === '' &&
      u.password === '' &&
      u.search === '' &&
      u.hash === '' &&
      u.pathname === '/' &&
      !/^[a-z]+:\/\/[^/]+\/./i.test(item);
    if (!isOriginOnly)
      throw new SettingValueError(`has ${item}, which is not an origin such as https://app.example.com`);
    out.push(u.origin);
  }
  return Object.freeze([...new Set(out)]);
};

export const wrapperSpec = {
  MAILSVC_API_KEY: {
    description:
      'Required. The core API key the wrapper sends with every request (`msk_…`). On Firebase a secret (`firebase functions:secrets:set MAILSVC_API_KEY`); never sent by callers, never in a response or a log.',
    parse: str({ minLength: 8 }),
    secret: true,
  },
  MAILSVC_CORE_URL: {
    description: 'Base URL of the core API; the wrapper posts to `<url>/v1/send`.',
    default: 'http://127.0.0.1:3000',
    parse: httpUrl({ base: true }),
  },
  MAILSVC_ALLOWED_ORIGINS: {
    description:
      'Comma-separated exact browser origins (`https://app.example.com,http://localhost:5173`). A request with any other `Origin` (including `null`) gets 403 `origin_not_allowed`. Empty: no browser origin is allowed; requests without `Origin` (servers, curl) are.',
    default: Object.freeze([]) as readonly string[],
    parse: parseOrigins,
  },
  MAILSVC_REQUIRE_APP_CHECK: {
    description: 'Require a valid Firebase App Check token in `X-Firebase-AppCheck` on every send.',
    default: false,
    parse: bool,
  },
  MAILSVC_ALLOW_ANONYMOUS: {
    description:
      'Accept callers without App Check where anyone can reach the wrapper. Without it (or `MAILSVC_REQUIRE_APP_CHECK=true`) the Firebase function answers 500 and the standalone wrapper refuses to start on an address other than loopback.',
    default: false,
    parse: bool,
  },
  MAILSVC_APP_CHECK_CONSUME: {
    description:
      'Replay protection: verify App Check tokens with `consume: true`, so each token is accepted once (costs a call to Google per request; the client must use limited-use tokens). `security`: on routes whose template category is security; `true`: every route; `false`: none.',
    default: 'security' as 'security' | boolean,
    parse: consumeSetting,
  },
  MAILSVC_APP_CHECK_PROJECT_ID: {
    description:
      "Firebase project id the App Check tokens must be for. Unset: the project firebase-admin finds itself (on Firebase, the function's project; elsewhere `GOOGLE_CLOUD_PROJECT`).",
    parse: str({ minLength: 1 }),
  },
  MAILSVC_ALLOW_SENDER_OVERRIDE: {
    description:
      'Let callers set `from`, `fromName` and `replyTo`. Off: a request with any of them is 400 `invalid_request`, and the core uses the environment sender.',
    default: false,
    parse: bool,
  },
  MAILSVC_ALLOWED_LINK_HOSTS: {
    description:
      "Comma-separated host names (`app.example.com,links.example.com`, exact, lowercase). When set, the template's link fields (`url` fields and `actionButton.url`) must be https on one of them, else 400 `invalid_template_data`. Text fields are not links and are not checked. Empty: any http(s) link the template schema accepts.",
    default: Object.freeze([]) as readonly string[],
    parse: parseLinkHosts,
  },
  MAILSVC_WRAPPER_PORT: {
    description: 'Port of the standalone wrapper (`mailsvc wrapper`).',
    default: 3001,
    parse: int(0, 65535),
  },
  MAILSVC_WRAPPER_HOST: {
    description: 'Interface the standalone wrapper listens on.',
    default: '127.0.0.1',
    parse: str({ minLength: 1 }),
  },
  MAILSVC_WRAPPER_TIMEOUT_MS: {
    description: 'How long the wrapper waits for the core before answering 500 `send_failed`.',
    default: 10_000,
    parse: int(100, 120_000),
  },
  MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: {
    description:
      'Requests to send routes per client IP per fixed 60-second window (starting at its first request). 0 turns the limit off.',
    default: 60,
    parse: int(0, 1_000_000),
  },
  MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: {
    description:
      'Sends per recipient per fixed 3600-second window, counted for valid requests only; the address is compared lowercase and without a `+tag`. 0 turns the limit off.',
    default: 10,
    parse: int(0, 1_000_000),
  },
  MAILSVC_REDIS_URL: {
    description:
      'Redis that holds the rate-limit counters, shared by every instance (`redis://…`, `rediss://…`). Unset: counted per instance. While Redis cannot be reached, each instance counts for itself (logged once). Holds a password: never logged.',
    parse: redisUrl,
    secret: true,
  },
  MAILSVC_WRAPPER_TRUST_PROXY: {
    description:
      'Standalone server only: take the client IP from the last `X-Forwarded-For` entry (the one your proxy appended) instead of the socket. Turn on only behind a proxy that sets it.',
    default: false,
    parse: bool,
  },
  LOG_LEVEL: {
    description: 'pino log level.',
    default: 'info',
    parse: logLevel,
  },
} satisfies Record<string, Setting<unknown>>;

export type WrapperConfig = SettingsOf<typeof wrapperSpec> & { readonly MAILSVC_API_KEY: string };

export class WrapperConfigError extends Error {
  constructor(readonly problems: { key: string; message: string }[]) {
    super(`Invalid wrapper configuration: ${problems.map((p) => `${p.key} ${p.message}`).join('; ')}`);
  }
}

/**
 * Every value is valid, but the wrapper would take anonymous sends where anyone can reach it.
 * A class of its own so `mailsvc start` can report it and run without the wrapper.
 */
export class AnonymousAccessError extends WrapperConfigError {
  constructor(readonly reason: string) {
    super([{ key: 'MAILSVC_REQUIRE_APP_CHECK', message: reason }]);
    this.message = `Refusing to start the wrapper: ${reason}`;
  }
}

export type WrapperRuntime = 'standalone' | 'firebase';

/**
 * A public send route that mails any address is an abuse target, so where anyone can reach the
 * wrapper (Firebase, or a standalone bind other than loopback) it needs App Check or the
 * operator's explicit MAILSVC_ALLOW_ANONYMOUS=true.
 */
export function checkAnonymousAccess(
  config: WrapperConfig,
  where: { runtime: WrapperRuntime; host?: string },
): void {
  if (config.MAILSVC_REQUIRE_APP_CHECK || config.MAILSVC_ALLOW_ANONYMOUS) return;
  const host = where.host ?? config.MAILSVC_WRAPPER_HOST;
  if (where.runtime === 'standalone' && isLoopbackName(host)) return;
  const exposure =
    where.runtime === 'firebase'
      ? 'a Firebase function is public'
      : `the wrapper would listen on ${host}, which is not a loopback address`;
  throw new AnonymousAccessError(
    `${exposure}, and without App Check anyone could send email through it. Set MAILSVC_REQUIRE_APP_CHECK=true (Firebase App Check), or MAILSVC_ALLOW_ANONYMOUS=true to accept anonymous callers.`,
  );
}

/**
 * Checks every key and names every bad one; MAILSVC_API_KEY is required. Then refuses anonymous
 * callers where anyone can reach the wrapper (checkAnonymousAccess).
 */
export function loadWrapperConfig(
  env: Record<string, string | undefined> = process.env,
  opts: { runtime?: WrapperRuntime } = {},
): WrapperConfig {
  const { values: out, problems } = readSettings(wrapperSpec, env);
  if (out.MAILSVC_API_KEY === undefined && !problems.some((p) => p.key === 'MAILSVC_API_KEY'))
    problems.unshift({ key: 'MAILSVC_API_KEY', message: 'is required' });
  if (problems.length > 0) throw new WrapperConfigError(problems);
  const config = Object.freeze(out) as WrapperConfig;
  checkAnonymousAccess(config, { runtime: opts.runtime ?? 'standalone' });
  return config;
}

/**
 * `mailsvc start`: the environment's wrapper settings (origins, App Check, limits) with the local
 * core, its dev key and the listening address given by the caller (the core's HOST), under the
 * same rule for anonymous callers.
 */
export function localWrapperConfig(overrides: {
  coreUrl: string;
  apiKey: string;
  port: number;
  host: string;
}): WrapperConfig {
  return loadWrapperConfig({
    ...process.env,
    MAILSVC_CORE_URL: overrides.coreUrl,
    MAILSVC_API_KEY: overrides.apiKey,
    MAILSVC_WRAPPER_PORT: String(overrides.port),
    MAILSVC_WRAPPER_HOST: overrides.host,
  });
}

/** A config from explicit values (tests): the same checks as the environment. */
export function wrapperConfigFrom(
  values: Record<string, string | number | boolean | undefined>,
): WrapperConfig {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(values)) env[k] = v === undefined ? undefined : String(v);
  return loadWrapperConfig(env);
}
