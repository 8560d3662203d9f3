// A project's brand: logo, colour and the postal address notification mail carries in its footer.
// Checked here, where it is set (`mailsvc admin projects create|update`, the admin API), so a
// message never renders with a logo from an insecure origin or a button nobody can read.

import { UNSAFE_DISPLAY_CHARACTERS } from '@mailsvc/contract/display-name';
import { contrastRatio, isHttpsUrl, MIN_TEXT_CONTRAST } from '@mailsvc/templates/brand-rules';
import { ApiError, type ErrorDetail } from '../../errors.js';

const UNSAFE = new RegExp(`[${UNSAFE_DISPLAY_CHARACTERS}]`);

/** WCAG 2.x minimum contrast for normal text (the button label is 16 px semibold). */
export const MIN_BUTTON_CONTRAST = MIN_TEXT_CONTRAST;
export const POSTAL_ADDRESS_MAX_LINES = 5;
export const POSTAL_ADDRESS_MAX_LENGTH = 300;
export const LOGO_URL_MAX_LENGTH = 2048;

/** Why a brand colour is refused, or null. The button's label is white on it. */
export function brandColorProblem(value: string): string | null {
  if (!/^#[0-9a-fA-F]{6}$/.test(value)) return 'must be a colour written #rrggbb';
  const ratio = contrastRatio(value.toLowerCase(), '#ffffff');
  if (ratio < MIN_BUTTON_CONTRAST) {
    return `white button text on ${value} has a contrast of ${ratio.toFixed(2)}:1; it must be at least ${MIN_BUTTON_CONTRAST}:1 (WCAG AA), so choose a darker colour`;
  }
  return null;
}

/**
 * The renderer's rule for logos (isHttpsUrl: an https link with no spaces, control, bidirectional or
 * invisible characters, no user name): what is accepted here is what a message shows.
 */
export function logoUrlProblem(value: string): string | null {
  if (value.length > LOGO_URL_MAX_LENGTH) return `must be at most ${LOGO_URL_MAX_LENGTH} characters`;
  if (!/^https:\/\//i.test(value)) return 'must be an https URL (mail clients block or warn on http images)';
  if (!isHttpsUrl(value))
    return 'must be an absolute https URL without spaces, a user name, or control, bidirectional or invisible characters';
  return null;
}

export function postalAddressProblem(value: string): string | null {
  if (value.length > POSTAL_ADDRESS_MAX_LENGTH)
    return `must be at most ${POSTAL_ADDRESS_MAX_LENGTH} characters`;
  const lines = value.split('\n');
  if (lines.length > POSTAL_ADDRESS_MAX_LINES) return `must be at most ${POSTAL_ADDRESS_MAX_LINES} lines`;
  if (lines.some((l) => UNSAFE.test(l)))
    return 'must not contain control, bidirectional or invisible characters other than line breaks';
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed())
    return 'must not contain unpaired UTF-16 surrogates';
  return null;
}

export interface BrandInput {
  brandColor?: string;
  logoUrl?: string;
  postalAddress?: string;
}

/** The brand columns to write; `''` clears a setting. Throws invalid_request with every problem. */
export function brandColumns(input: BrandInput): Record<string, string | null> {
  const cols: Record<string, string | null> = {};
  const problems: ErrorDetail[] = [];
  if (input.brandColor !== undefined) {
    const problem = input.brandColor === '' ? null : brandColorProblem(input.brandColor);
    if (problem) problems.push({ path: '/brandColor', message: problem });
    cols.brand_color = input.brandColor === '' ? null : input.brandColor.toLowerCase();
  }
  if (input.logoUrl !== undefined) {
    const problem = input.logoUrl === '' ? null : logoUrlProblem(input.logoUrl);
    if (problem) problems.push({ path: '/logoUrl', message: problem });
    // The scheme is stored in lower case (`HTTPS://` is the same URL), as migration 0009 checks.
    cols.logo_url = input.logoUrl === '' ? null : input.logoUrl.replace(/^https/i, 'https');
  }
  if (input.postalAddress !== undefined) {
    // A command line cannot type a line break easily: `\n` written out, or ` | `, separates lines.
    const value = input.postalAddress
      .replace(/\r\n?/g, '\n')
      .replace(/\\n|\s+\|\s+/g, '\n')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .join('\n');
    const problem = postalAddressProblem(value);
    if (problem) problems.push({ path: '/postalAddress', message: problem });
    cols.postal_address = value === '' ? null : value;
  }
  if (problems.length > 0) throw new ApiError('invalid_request', 'Invalid brand settings.', problems);
  return cols;
}
