// The address rules live in @mailsvc/templates/email so the wrapper applies the same ones without
// depending on the server.
export { isEmail, maskEmail, type ParsedEmail, parseDomain, parseEmail } from '@mailsvc/templates/email';

/** Header-safe display text: no CR, LF, NUL or other control characters, at most `max` characters. */
export function checkDisplayName(value: string, max = 120): string | null {
  if (value.length > max) return `must be at most ${max} characters`;
  if (/[\u0000-\u001f\u007f\u0085\u2028\u2029]/.test(value))
    return 'must not contain line breaks or control characters';
  return null;
}
