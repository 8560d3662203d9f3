// Address rules shared by the core, the wrapper and the client (DESIGN.md §2): one bare address,
// RFC 5321 lengths, no control or invisible characters, IDN domains as punycode. Browser-safe.
import { UNSAFE_DISPLAY_CHARACTERS } from './display-name.js';

export type ParsedEmail =
  | { ok: true; address: string; local: string; domain: string }
  | { ok: false; reason: string };

// RFC 5322 dot-atom: quoted local parts, comments and display names are not accepted.
const ATEXT = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A domain name in ASCII (IDNA / UTS #46, punycode), as browsers and Node's URL parser map it;
 * '' when it is not one. The WHATWG URL parser runs everywhere the client does (Node, browsers,
 * Deno, Workers), unlike node:url's domainToASCII.
 */
function domainToASCII(domain: string): string {
  if (domain === '' || /[/?#@:\\[\]%]/.test(domain)) return '';
  try {
    return new URL(`http://${domain}/`).hostname;
  } catch {
    return '';
  }
}
// IDNA (domainToASCII) drops tabs, newlines, soft hyphens and zero-width characters without a word:
// refuse them, and every other control, bidirectional or invisible character, before it runs.
const INVISIBLE = new RegExp(`[\\s${UNSAFE_DISPLAY_CHARACTERS}]`);

/**
 * Validates one bare address (no display name, no list) and normalises it for identity:
 * trimmed, lowercased, IDN domain in punycode. RFC 5321 lengths: local ≤ 64, whole ≤ 254.
 */
export function parseEmail(raw: string): ParsedEmail {
  const value = raw.trim();
  if (value === '') return { ok: false, reason: 'must not be empty' };
  // Before any pattern runs: no address is longer (a bound on every check below).
  if (value.length > 254) return { ok: false, reason: 'must be at most 254 characters' };
  // "Jane <jane@example.com>", as other mail APIs take it: say what to send instead.
  if (value.endsWith('>') && value.slice(value.lastIndexOf('<') + 1).includes('@'))
    return {
      ok: false,
      reason: 'must be a bare address such as name@example.com, without a display name or angle brackets',
    };
  if (INVISIBLE.test(value))
    return { ok: false, reason: 'must not contain whitespace, control or invisible characters' };
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1)
    return { ok: false, reason: 'must be an address such as name@example.com' };
  const local = value.slice(0, at);
  if (local.length > 64) return { ok: false, reason: 'local part must be at most 64 characters' };
  // Non-ASCII local parts (SMTPUTF8, RFC 6531) are not accepted: many relays and mailboxes refuse them.
  if (/[^\x00-\x7f]/.test(local))
    return {
      ok: false,
      reason:
        'local part must be ASCII: non-ASCII (SMTPUTF8) local parts are not accepted; the domain may be Unicode',
    };
  if (!ATEXT.test(local))
    return { ok: false, reason: 'must be a single bare address such as name@example.com' };
  const domain = domainToASCII(value.slice(at + 1).toLowerCase());
  const labels = domain.split('.');
  if (
    domain === '' ||
    labels.length < 2 ||
    !labels.every((l) => LABEL.test(l)) ||
    /^[0-9]+$/.test(labels[labels.length - 1]!)
  ) {
    return { ok: false, reason: 'domain is not valid' };
  }
  const address = `${local.toLowerCase()}@${domain}`;
  if (address.length > 254) return { ok: false, reason: 'must be at most 254 characters' };
  return { ok: true, address, local: local.toLowerCase(), domain };
}

export function isEmail(raw: string): boolean {
  return parseEmail(raw).ok;
}

/** j***@example.com — the only form of a recipient address that may reach a log. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***@${address.slice(at + 1)}`;
}

/** A domain name in punycode, lowercase; null when it is not one. */
export function parseDomain(raw: string): string | null {
  if (INVISIBLE.test(raw.trim())) return null;
  const domain = domainToASCII(raw.trim().toLowerCase().replace(/\.$/, ''));
  const labels = domain.split('.');
  if (domain === '' || domain.length > 253 || labels.length < 2) return null;
  if (!labels.every((l) => LABEL.test(l)) || /^[0-9]+$/.test(labels[labels.length - 1]!)) return null;
  return domain;
}
