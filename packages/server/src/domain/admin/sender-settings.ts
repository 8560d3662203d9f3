// The sender settings of projects and environments (From, its name, Reply-To) and a project's
// display name, support address and brand, checked and turned into the columns to write; `''`
// clears a setting. Each throws invalid_request with the paths of what it refuses.
import { ApiError, type ErrorDetail } from '../../errors.js';
import { checkDisplayName, parseEmail } from '../email.js';
import { type BrandInput, brandColumns } from './brand.js';

export function senderColumns(input: { fromEmail?: string; fromName?: string; replyTo?: string }) {
  const details: ErrorDetail[] = [];
  const cols: { from_email?: string | null; from_name?: string | null; reply_to?: string | null } = {};
  const email = (v: string | undefined, path: string) => {
    if (v === undefined) return undefined;
    if (v === '') return null;
    const parsed = parseEmail(v);
    if (!parsed.ok) {
      details.push({ path, message: parsed.reason });
      return undefined;
    }
    return parsed.address;
  };
  const fromEmail = email(input.fromEmail, '/fromEmail');
  if (fromEmail !== undefined) cols.from_email = fromEmail;
  const replyTo = email(input.replyTo, '/replyTo');
  if (replyTo !== undefined) cols.reply_to = replyTo;
  if (input.fromName !== undefined) {
    const problem = checkDisplayName(input.fromName);
    if (problem) details.push({ path: '/fromName', message: problem });
    else cols.from_name = input.fromName === '' ? null : input.fromName;
  }
  if (details.length > 0) throw new ApiError('invalid_request', 'Invalid sender settings.', details);
  return cols;
}

export function projectColumns(
  input: {
    displayName?: string;
    supportEmail?: string;
    fromEmail?: string;
    fromName?: string;
    replyTo?: string;
  } & BrandInput,
) {
  const cols: Record<string, string | null> = { ...senderColumns(input), ...brandColumns(input) };
  if (input.displayName !== undefined) {
    const problem = checkDisplayName(input.displayName);
    if (problem)
      throw new ApiError('invalid_request', 'Invalid display name.', [
        { path: '/displayName', message: problem },
      ]);
    cols.display_name = input.displayName === '' ? null : input.displayName;
  }
  if (input.supportEmail !== undefined) {
    if (input.supportEmail === '') cols.support_email = null;
    else {
      const parsed = parseEmail(input.supportEmail);
      if (!parsed.ok) {
        throw new ApiError('invalid_request', 'Invalid support email.', [
          { path: '/supportEmail', message: parsed.reason },
        ]);
      }
      cols.support_email = parsed.address;
    }
  }
  return cols;
}
