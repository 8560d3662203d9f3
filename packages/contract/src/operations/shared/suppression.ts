// A suppression of the key's environment (DESIGN.md §12): why an address is not mailed, one entry
// per address and reason. hard_bounce (a cooldown or a suppression after hard bounces), complaint
// and unsubscribed (notification templates) are facts about the mailbox and the recipient's
// consent; manual is the app's own (POST /v1/suppressions/add). Shared by the three
// /v1/suppressions operations.
import { type Static, Type } from '@sinclair/typebox';
import { METADATA_VALUE_PATTERN } from '../../metadata.js';
import { Timestamp } from './timestamp.js';

export const SUPPRESSION_REASONS = ['hard_bounce', 'complaint', 'unsubscribed', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export const SuppressionReasonSchema = Type.Unsafe<SuppressionReason>({
  type: 'string',
  enum: [...SUPPRESSION_REASONS],
  description:
    'hard_bounce: in cooldown or suppressed after hard bounces (all templates); complaint: the recipient complained (all templates); unsubscribed: from notification templates; manual: added by the app (all templates)',
});

export const SUPPRESSION_NOTE_MAX = 500;

export const SuppressionNote = Type.String({
  minLength: 1,
  maxLength: SUPPRESSION_NOTE_MAX,
  pattern: METADATA_VALUE_PATTERN,
  description: 'why, for your own records: at most 500 characters, no control characters; never mailed',
});

export const SuppressionEmail = Type.String({
  minLength: 1,
  maxLength: 320,
  description: 'the address, as sent to (compared normalised: lowercase, punycode)',
});

export const Suppression = Type.Object(
  {
    email: Type.String({ description: 'the normalised address' }),
    reason: SuppressionReasonSchema,
    createdAt: Type.Unsafe<string>({
      ...Timestamp,
      description: 'since when: the last hard bounce, the complaint, the unsubscribe, or the add',
    }),
    until: Type.Union([Timestamp, Type.Null()], {
      description:
        'when it ends by itself (a cooldown, a bounce suppression, a manual one with an end); null: until removed',
    }),
    note: Type.Optional(SuppressionNote),
  },
  { additionalProperties: false },
);
export type Suppression = Static<typeof Suppression>;

export const SUPPRESSION_EXAMPLE: Suppression = {
  email: 'jane@example.com',
  reason: 'manual',
  createdAt: '2026-11-22T10:15:30.123Z',
  until: null,
  note: 'asked support to stop all mail',
};
