// The settings kit both services read their environment with (packages/server/src/config.ts,
// packages/wrapper/src/config.ts): each key declared once with its parser, default and
// description; every bad key named at once; the docs table generated from the same declaration.

export type Parser<T> = (raw: string) => T;

export interface Setting<T> {
  description: string;
  /** The value when unset (or empty); a function computes it from the keys read before. */
  default?: T | ((partial: Record<string, unknown>) => T);
  /** How the default is shown in the docs when it is computed. */
  defaultLabel?: string;
  parse: Parser<T>;
  /** Never shown in a message or a log. */
  secret?: boolean;
}

export type SettingsSpec = Record<string, Setting<unknown>>;

/** What a parser throws: the message completes "KEY …" ("PORT must be a whole number"). */
export class SettingValueError extends Error {}

export interface SettingProblem {
  key: string;
  message: string;
}

type ValueOf<S, K extends keyof S> = S[K] extends Setting<infer T> ? T : never;
type HasDefault<S, K extends keyof S> = S[K] extends { default: unknown } ? K : never;

/** The values of a spec: keys with a default are always there, the others may be missing. */
export type SettingsOf<S extends SettingsSpec> = {
  readonly [K in keyof S as HasDefault<S, K>]: ValueOf<S, K>;
} & {
  readonly [K in Exclude<keyof S, HasDefault<S, keyof S>>]?: ValueOf<S, K>;
};

/** Reads every key of `spec` from `env`; empty values count as unset. */
export function readSettings<S extends SettingsSpec>(
  spec: S,
  env: Record<string, string | undefined>,
): { values: Record<string, unknown>; problems: SettingProblem[] } {
  const values: Record<string, unknown> = {};
  const problems: SettingProblem[] = [];
  const deferred: [string, (partial: Record<string, unknown>) => unknown][] = [];
  for (const [key, s] of Object.entries(spec)) {
    const raw = env[key];
    if (raw === undefined || raw === '') {
      if (typeof s.default === 'function')
        deferred.push([key, s.default as (partial: Record<string, unknown>) => unknown]);
      else if (s.default !== undefined) values[key] = s.default;
      continue;
    }
    try {
      values[key] = s.parse(raw);
    } catch (err) {
      if (!(err instanceof SettingValueError)) throw err;
      problems.push({ key, message: err.message });
    }
  }
  if (problems.length === 0) for (const [key, compute] of deferred) values[key] = compute(values);
  return { values, problems };
}

/** `| key | default | meaning |` rows of the docs, in the spec's order. */
export function settingsTableRows(spec: SettingsSpec): string[] {
  return Object.entries(spec).map(([key, s]) => {
    const def =
      s.defaultLabel ??
      (s.default === undefined
        ? '(unset)'
        : typeof s.default === 'function'
          ? '(computed)'
          : Array.isArray(s.default)
            ? s.default.length === 0
              ? '(none)'
              : s.default.join(',')
            : String(s.default));
    return `| \`${key}\` | \`${def}\` | ${s.description} |`;
  });
}

// ---- parsers

export const str =
  (opts: { minLength?: number; pattern?: RegExp; hint?: string } = {}): Parser<string> =>
  (raw) => {
    if (opts.minLength !== undefined && raw.length < opts.minLength)
      throw new SettingValueError(`must be at least ${opts.minLength} characters`);
    if (opts.pattern && !opts.pattern.test(raw))
      throw new SettingValueError(opts.hint ?? 'has an invalid format');
    return raw;
  };

export const int =
  (min: number, max: number): Parser<number> =>
  (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new SettingValueError('must be a whole number');
    const n = Number(raw);
    if (n < min || n > max) throw new SettingValueError(`must be between ${min} and ${max}`);
    return n;
  };

export const bool: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new SettingValueError('must be true or false');
};

export const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (raw) => {
    if (!(values as string[]).includes(raw))
      throw new SettingValueError(`must be one of ${values.join(', ')}`);
    return raw as T;
  };

/** Trailing slashes dropped, in linear time (a regex such as /\/+$/ is quadratic on "////…x"). */
export function trimTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 1 && s.charCodeAt(end - 1) === 47) end--;
  return end === s.length ? s : s.slice(0, end);
}

/**
 * An absolute http(s) URL, without trailing slashes. `base`: a base others append paths to, so
 * no user info, query or fragment (a query or fragment would swallow the path; credentials would
 * travel in every link built from it).
 */
export const httpUrl =
  (opts: { base?: boolean } = {}): Parser<string> =>
  (raw) => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new SettingValueError('must be an absolute http(s) URL');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new SettingValueError('must be an http(s) URL');
    if (opts.base && (u.username || u.password || u.search || u.hash))
      throw new SettingValueError('must be a base URL without user info, query or fragment');
    return trimTrailingSlashes(raw);
  };

/** A Redis URL; it may hold a password, so no message repeats it. */
export const redisUrl: Parser<string> = (raw) => {
  let u: URL | undefined;
  try {
    u = new URL(raw);
  } catch {}
  if (!u || (u.protocol !== 'redis:' && u.protocol !== 'rediss:') || u.hostname === '')
    throw new SettingValueError('must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379');
  return raw;
};

export const logLevel = oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent');
