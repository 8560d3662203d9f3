// The rule of a send's metadata (DESIGN.md §12), shared by the core's schema
// (operations/shared/metadata.ts) and the wrapper's envelope: at most 20 keys of letters, digits,
// _, . and - (1 to 40 characters), string values of at most 256 characters without control
// characters. Browser-safe.

export const METADATA_KEY_PATTERN = '^[A-Za-z0-9_.-]{1,40}$';
export const METADATA_KEYS_MAX = 20;
export const METADATA_VALUE_MAX = 256;
/**
 * No C0 or C1 control character, no DEL and no line or paragraph separator in a value (so none
 * breaks a log line, a CSV export or a header of whatever reads it).
 */
export const METADATA_VALUE_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029]*$';

const KEY = new RegExp(METADATA_KEY_PATTERN);
const VALUE = new RegExp(METADATA_VALUE_PATTERN, 'u');

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** Every problem of a metadata value, each with its JSON Pointer under `pointer` (`/metadata`). */
export function metadataProblems(value: unknown, pointer: string): { path: string; message: string }[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return [{ path: pointer, message: 'must be an object of string values' }];
  const problems: { path: string; message: string }[] = [];
  const entries = Object.entries(value);
  if (entries.length > METADATA_KEYS_MAX)
    problems.push({ path: pointer, message: `must have at most ${METADATA_KEYS_MAX} keys` });
  for (const [key, v] of entries) {
    const at = `${pointer}/${escapePointer(key)}`;
    if (!KEY.test(key))
      problems.push({
        path: at,
        message: 'is not an allowed key: letters, digits, _, . and -, 1 to 40 characters',
      });
    else if (typeof v !== 'string') problems.push({ path: at, message: 'must be a string' });
    // characters as the core's schema counts them (code points, not UTF-16 units)
    else if ([...v].length > METADATA_VALUE_MAX)
      problems.push({ path: at, message: `must be at most ${METADATA_VALUE_MAX} characters` });
    else if (!VALUE.test(v))
      problems.push({ path: at, message: 'must not contain control characters or line separators' });
  }
  return problems;
}
