// Rules for any JSON that enters the service (core and wrapper), checked right after parsing:
// nesting is bounded (deep nesting overflows the stack of anything recursive later: schema
// validation, cloning, canonical JSON), and every string — value or key — must be one that
// PostgreSQL can store in text and jsonb (no NUL, no unpaired UTF-16 surrogate). Refusing those
// here, with the path, is what keeps one bad request from failing a batch shared with others.
// No Node-only APIs: the client may use this in browsers.
import sjson from 'secure-json-parse';

export const MAX_JSON_DEPTH = 32;

export interface InputProblem {
  /** JSON Pointer into the body. */
  path: string;
  message: string;
}

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** A string PostgreSQL can store: no NUL and no unpaired surrogate. */
export function isStorableString(s: string): boolean {
  return !s.includes('\u0000') && (s as string & { isWellFormed(): boolean }).isWellFormed();
}

/** The string made storable: each NUL and unpaired surrogate replaced by U+FFFD. */
export function toStorableString(s: string): string {
  return (s as string & { toWellFormed(): string }).toWellFormed().replaceAll('\u0000', '\uFFFD');
}

const STRING_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/**
 * Every problem of a parsed JSON value (at most `limit`): containers nested deeper than
 * `maxDepth`, strings or keys PostgreSQL cannot store. Never recurses past `maxDepth + 1`.
 */
export function findJsonInputProblems(
  value: unknown,
  opts: { maxDepth?: number; limit?: number } = {},
): InputProblem[] {
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
  const limit = opts.limit ?? 20;
  const out: InputProblem[] = [];
  const walk = (v: unknown, path: string, depth: number): void => {
    if (out.length >= limit) return;
    if (typeof v === 'string') {
      if (!isStorableString(v)) out.push({ path: path || '/', message: STRING_MESSAGE });
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (depth >= maxDepth) {
      out.push({ path: path || '/', message: `nests deeper than ${maxDepth} levels` });
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && out.length < limit; i++) walk(v[i], `${path}/${i}`, depth + 1);
      return;
    }
    for (const key of Object.keys(v)) {
      if (out.length >= limit) return;
      const child = `${path}/${escapePointer(isStorableString(key) ? key : encodeURIComponentSafe(key))}`;
      if (!isStorableString(key)) out.push({ path: child, message: `property name ${STRING_MESSAGE}` });
      else walk((v as Record<string, unknown>)[key], child, depth + 1);
    }
  };
  walk(value, '', 0);
  return out;
}

/** A key that cannot be stored cannot be echoed as-is either: show it percent-encoded. */
function encodeURIComponentSafe(key: string): string {
  return Array.from(key, (c) =>
    isStorableString(c) ? c : `%u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  ).join('');
}

/** The sentence an error answer gives for a failed parse (core and wrapper say the same). */
export function describeJsonBodyFailure(reason: 'empty' | 'syntax' | 'input'): string {
  if (reason === 'empty') return 'The body is empty; send a JSON object.';
  if (reason === 'syntax') return 'The body is not valid JSON.';
  return 'The body has values the service does not accept; `details` lists each one.';
}

export type JsonBodyResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'empty' | 'syntax' | 'input'; problems: InputProblem[] };

/**
 * Parses a request body: JSON syntax, no `__proto__` / `constructor.prototype` keys (prototype
 * poisoning), then the input rules above.
 */
export function parseJsonBody(text: string, opts: { maxDepth?: number } = {}): JsonBodyResult {
  if (text.trim() === '')
    return { ok: false, reason: 'empty', problems: [{ path: '/', message: 'is required' }] };
  let value: unknown;
  try {
    value = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    // secure-json-parse throws a SyntaxError for forbidden keys too, with its own wording.
    const isPoisoning = err instanceof Error && /forbidden prototype property/.test(err.message);
    const message = isPoisoning
      ? 'must not have __proto__ or constructor.prototype keys'
      : 'is not valid JSON';
    return { ok: false, reason: 'syntax', problems: [{ path: '/', message }] };
  }
  const problems = findJsonInputProblems(value, opts);
  return problems.length > 0 ? { ok: false, reason: 'input', problems } : { ok: true, value };
}
