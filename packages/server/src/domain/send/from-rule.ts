// The From rule (DESIGN.md §3 steps 6 and 7): the From is the send's `from`, else the
// environment's configured From, else the project's, else notifications@ the sending domain; the
// sending domain is the environment's custom domain, else the project's, else the tenant's, else
// MAILSVC_DEFAULT_SENDING_DOMAIN; a custom domain must be verified and the From must be on the
// sending domain. Step 6 (parsing what the send gives) needs no database and lives here; step 7
// needs the sending domains and lives once, in db/functions/choose_sending_domain.sql, which
// answers its refusal code. This file turns that code into the API's answer.
import type { DomainRefusal } from '../../db/repositories/send.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { DomainNotReady } from '../domains/not-ready.js';
import { checkDisplayName, parseEmail } from '../email.js';

export interface SenderInput {
  from?: string | undefined;
  fromName?: string | undefined;
  replyTo?: string | undefined;
}

export interface Sender {
  /** The explicit or configured From; null for notifications@ the sending domain. */
  fromEmail: string | null;
  fromName: string | null;
  replyTo: string | null;
  /** The From came with the send (its errors point at /from). */
  isExplicit: boolean;
}

function parseAddress(
  value: string,
  field: 'from' | 'replyTo',
  code: 'invalid_from_address' | 'invalid_reply_to',
) {
  const parsed = parseEmail(value);
  if (!parsed.ok)
    throw new ApiError(code, `${field} ${parsed.reason}.`, [{ path: `/${field}`, message: parsed.reason }]);
  return parsed.address;
}

/** Step 6: the From, the From name and the Reply-To, each the send's, else the environment's, else the project's. */
export function resolveSender(auth: AuthContext, input: SenderInput): Sender {
  const env = auth.environment.sender;
  const prj = auth.project.sender;
  const fromEmail =
    input.from !== undefined
      ? parseAddress(input.from, 'from', 'invalid_from_address')
      : (env.fromEmail ?? prj.fromEmail ?? null);
  let fromName = env.fromName ?? prj.fromName;
  if (input.fromName !== undefined) {
    const problem = checkDisplayName(input.fromName);
    if (problem)
      throw new ApiError('invalid_from_name', `fromName ${problem}.`, [
        { path: '/fromName', message: problem },
      ]);
    fromName = input.fromName;
  }
  const replyTo =
    input.replyTo !== undefined
      ? parseAddress(input.replyTo, 'replyTo', 'invalid_reply_to')
      : (env.replyTo ?? prj.replyTo);
  return {
    fromEmail,
    fromName: fromName || null,
    replyTo: replyTo || null,
    isExplicit: input.from !== undefined,
  };
}

/** Step 7's answer, from choose_sending_domain()'s code and the domain it chose. */
export function domainRefusalError(
  refusal: DomainRefusal,
  sendingDomain: string,
  sender: Pick<Sender, 'isExplicit'>,
  notReady?: DomainNotReady,
): ApiError {
  if (refusal === 'sending_domain_not_ready') {
    const why =
      notReady === undefined
        ? 'is not verified (pending, or failed its DNS check): POST /v1/domains/list shows its records'
        : notReady.status === 'failed'
          ? `failed its DNS check (${notReady.records.length > 0 ? 'a record is missing or wrong' : 'see POST /v1/domains/get'})`
          : 'is not verified yet (its DKIM record has not been seen)';
    return new ApiError(
      'sending_domain_not_ready',
      `The sending domain ${sendingDomain} ${why}.`,
      notReady?.records.map((r) => ({
        path: sender.isExplicit ? '/from' : '',
        message: `${r.type} ${r.host}: ${r.state}${r.problems.length > 0 ? ` (${r.problems.join(', ')})` : ''}`,
      })),
    );
  }
  return new ApiError(
    'from_domain_not_allowed',
    `${sender.isExplicit ? 'from' : 'The configured From Email'} must be an address on ${sendingDomain}.`,
    sender.isExplicit ? [{ path: '/from', message: `must be on ${sendingDomain}` }] : undefined,
  );
}
