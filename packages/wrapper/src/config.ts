// The only module of the wrapper that reads process.env. Every key is declared once with its
// type, default and description; the README's settings table is checked against this table.

type Parser<T> = (raw: string) => T;

interface KeySpec<T> {
  description: string;
  default?: T;
  parse: Parser<T>;
  secret?: boolean;
}

class ConfigValueError extends Error {}

const str =
  (minLength = 1): Parser<string> =>
  (raw) => {
    if (raw.length < minLength) throw new ConfigValueError(`must be at least ${minLength} characters`);
    return raw;
  };

const int =
  (min: number, max: number): Parser<number> =>
  (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new ConfigValueError('must be a whole number');
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigValueError(`must be between ${min} and ${max}`);
    return n;
  };

const bool: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new ConfigValueError('must be true or false');
};

const httpUrl: Parser<string> = (raw) => {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigValueError('must be an absolute http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigValueError('must be an http(s) URL');
  return raw.replace(/\/+$/, '');
};

/**
 * Exact origins, scheme://host[:port], as browsers send them in `Origin`: no wildcard, no path,
 * no `null`. A default port is dropped (https://a.example:443 → https://a.example), like browsers do.
 */
export const parseOrigins: Parser<readonly string[]> = (raw) => {
  const out: string[] = [];
  for (const item of raw.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    if (item.includes('*')) throw new ConfigValueError(`has a wildcard (${item}); list exact origins`);
    let u: URL;
    try {
      u = new URL(item);
    } catch {
      throw new ConfigValueError(`has ${item}, which is not an origin such as https://app.example.com`);
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
      throw new ConfigValueError(`has ${item}, which is not an origin such as https://app.example.com`);
    out.push(u.origin);
  }
  return Object.freeze([...new Set(out)]);
};

const logLevel: Parser<string> = (raw) => {
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  if (!levels.includes(raw)) throw new ConfigValueError(`must be one of ${levels.join(', ')}`);
  return raw;
};

export const wrapperSpec = {
  MAILSVC_API_KEY: {
    description:
      'Required. The core API key the wrapper sends with every request (`msk_…`). On Firebase a secret (`firebase functions:secrets:set MAILSVC_API_KEY`); never sent by callers, never in a response or a log.',
    parse: str(8),
    secret: true,
  },
  MAILSVC_CORE_URL: {
    description: 'Base URL of the core API; the wrapper posts to `<url>/v1/send`.',
    default: 'http://127.0.0.1:3000',
    parse: httpUrl,
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
  MAILSVC_APP_CHECK_CONSUME: {
    description:
      'Replay protection: verify App Check tokens with `consume: true`, so each token is accepted once (costs a call to Google per request; the client must use limited-use tokens).',
    default: false,
    parse: bool,
  },
  MAILSVC_APP_CHECK_PROJECT_ID: {
    description:
      "Firebase project id the App Check tokens must be for. Unset: the project firebase-admin finds itself (on Firebase, the function's project; elsewhere `GOOGLE_CLOUD_PROJECT`).",
    parse: str(1),
  },
  MAILSVC_WRAPPER_PORT: {
    description: 'Port of the standalone wrapper (`mailsvc wrapper`).',
    default: 3001,
    parse: int(0, 65535),
  },
  MAILSVC_WRAPPER_HOST: {
    description: 'Interface the standalone wrapper listens on.',
    default: '127.0.0.1',
    parse: str(1),
  },
  MAILSVC_WRAPPER_TIMEOUT_MS: {
    description: 'How long the wrapper waits for the core before answering 500 `send_failed`.',
    default: 10_000,
    parse: int(100, 120_000),
  },
  MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: {
    description:
      'Requests per client IP per minute (a token bucket: this many at once, refilled evenly over the minute). 0 turns the limit off. Kept in memory per instance.',
    default: 60,
    parse: int(0, 1_000_000),
  },
  MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: {
    description:
      'Sends per recipient address per hour (a token bucket, as above), counted for valid requests only. 0 turns the limit off. Kept in memory per instance.',
    default: 10,
    parse: int(0, 1_000_000),
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
} satisfies Record<string, KeySpec<unknown>>;

type Spec = typeof wrapperSpec;
type ValueOf<K extends keyof Spec> = Spec[K] extends KeySpec<infer T> ? T : never;
type HasDefault<K extends keyof Spec> = Spec[K] extends { default: unknown } ? K : never;

export type WrapperConfig = {
  readonly [K in keyof Spec as HasDefault<K>]: ValueOf<K>;
} & {
  readonly [K in Exclude<keyof Spec, HasDefault<keyof Spec>>]?: ValueOf<K>;
} & { readonly MAILSVC_API_KEY: string };

export class WrapperConfigError extends Error {
  constructor(readonly problems: { key: string; message: string }[]) {
    super(`Invalid wrapper configuration: ${problems.map((p) => `${p.key} ${p.message}`).join('; ')}`);
  }
}

/** Checks every key and names every bad one; MAILSVC_API_KEY is required. */
export function loadWrapperConfig(env: Record<string, string | undefined> = process.env): WrapperConfig {
  const out: Record<string, unknown> = {};
  const problems: { key: string; message: string }[] = [];
  for (const [key, s] of Object.entries(wrapperSpec) as [string, KeySpec<unknown>][]) {
    const raw = env[key];
    if (raw === undefined || raw === '') {
      if (s.default !== undefined) out[key] = s.default;
      continue;
    }
    try {
      out[key] = s.parse(raw);
    } catch (err) {
      if (!(err instanceof ConfigValueError)) throw err;
      problems.push({ key, message: err.message });
    }
  }
  if (out.MAILSVC_API_KEY === undefined && !problems.some((p) => p.key === 'MAILSVC_API_KEY'))
    problems.unshift({ key: 'MAILSVC_API_KEY', message: 'is required' });
  if (problems.length > 0) throw new WrapperConfigError(problems);
  return Object.freeze(out) as WrapperConfig;
}

/**
 * `mailsvc start`: the environment's wrapper settings (origins, App Check, limits) with the local
 * core, its dev key and the listening address given by the caller.
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
