// A display name that goes into a header (From's phrase): one line, at most `max` characters, and
// nothing that hides or reorders what the reader sees. Refused: C0 and C1 controls (CR, LF, NUL,
// U+0080–U+009F), line and paragraph separators, bidirectional controls (U+061C, U+200E–U+200F,
// U+202A–U+202E, U+2066–U+2069) and invisible characters (zero-width space, joiners, word joiner,
// invisible operators, soft hyphen, U+180E, BOM) — the tools of display-name spoofing
// ("PayPal\u202E…"). The same characters are refused in URLs and email domains
// (@mailsvc/templates), where IDNA would silently drop some of them.
// Shared by the core, the wrapper and the admin commands.

/** The refused characters, as the body of a regular-expression character class. */
export const UNSAFE_DISPLAY_CHARACTERS =
  '\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
const UNSAFE = new RegExp(`[${UNSAFE_DISPLAY_CHARACTERS}]`);

// A name that carries an address ("security@paypal.com" <notifications@…>) shows readers a
// sender it is not. (Angle brackets alone are fine: the phrase is quoted in the header.)
const ADDRESS_LIKE = /[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>".]{2,}/;

/** null when the name is acceptable, else the problem as a phrase ("must …"). */
export function checkDisplayName(value: string, max = 120): string | null {
  if (value.length > max) return `must be at most ${max} characters`;
  if (ADDRESS_LIKE.test(value)) return 'must not contain an email address';
  if (UNSAFE.test(value))
    return 'must not contain line breaks, control, bidirectional or invisible characters';
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed())
    return 'must not contain unpaired UTF-16 surrogates';
  return null;
}
