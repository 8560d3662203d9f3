import { UNSAFE_DISPLAY_CHARACTERS } from '@mailsvc/contract/display-name';
import type { JsonSchema, UrlField } from './types.js';

export const URL_MAX = 2048;

/**
 * http or https only, any letter case, a host, and no whitespace, control (C0, C1), bidirectional
 * or invisible characters (the display-name rule's set: a link must read as what it is).
 * JSON Schema's `uri` format accepts `javascript:` and `data:`; this pattern does not, nor
 * scheme-relative `//host` links, nor userinfo (`https://paypal.com@evil.example` shows one host
 * and goes to another) or a backslash in the authority (browsers read it as a slash).
 *
 * Linear time: the authority's characters exclude `/`, `?` and `#`, which must start what
 * follows, so there is one way to split any input. (The pattern before this one let both parts
 * take the same characters: a 64 KB value cost seconds of backtracking, and Ajv runs patterns
 * even after maxLength has failed.)
 */
export const HTTP_URL_PATTERN = `^[Hh][Tt][Tt][Pp][Ss]?://[^\\s${UNSAFE_DISPLAY_CHARACTERS}/?#@\\\\]+(?:[/?#][^\\s${UNSAFE_DISPLAY_CHARACTERS}]*)?$`;
const HTTP_URL = new RegExp(HTTP_URL_PATTERN, 'u');

export function isHttpUrl(value: unknown): value is string {
  return typeof value === 'string' && value.length <= URL_MAX && HTTP_URL.test(value);
}

/** Logos come from https only: mail clients block or warn about images fetched over http. */
export function isHttpsUrl(value: unknown): value is string {
  return isHttpUrl(value) && /^https:/i.test(value);
}

export function urlSchema(): JsonSchema {
  return { type: 'string', maxLength: URL_MAX, pattern: HTTP_URL_PATTERN };
}

export function url(name: string, label: string): UrlField {
  return { kind: 'url', name, label };
}
