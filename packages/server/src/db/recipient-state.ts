// What the eligibility rule of a recipient answers (DESIGN.md §5): the rule itself lives once, in
// SQL (db/functions/recipient_refusal.sql); readers get its verdicts, never the raw facts to judge
// again. domain/recipients/eligibility.ts words them for the API.

/** Why a recipient may not be sent a template now (recipient_refusal() in db/functions/recipient_refusal.sql). */
export type RecipientRefusal = 'recipient_complained' | 'recipient_unsubscribed' | 'recipient_suppressed';
