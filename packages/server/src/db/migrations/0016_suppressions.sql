-- The suppressions API (DESIGN.md §12): an app's own suppression of an address (reason manual),
-- beside the hard-bounce cooldown and suppression, the complaint and the unsubscribe the row
-- already keeps. manual_suppressed_at is set while one stands; manual_suppressed_until is its end
-- (NULL: until removed). The eligibility rule reads them (recipient_refusal.sql).
ALTER TABLE recipients ADD COLUMN IF NOT EXISTS manual_suppressed_at timestamptz;
ALTER TABLE recipients ADD COLUMN IF NOT EXISTS manual_suppressed_until timestamptz;
ALTER TABLE recipients ADD COLUMN IF NOT EXISTS manual_suppression_note text;

-- POST /v1/suppressions/list walks one of these per reason, newest first (an entry begins at the
-- time it names), and merges them. IF NOT EXISTS: on a large table, build them CONCURRENTLY before
-- upgrading (docs/operations.md).
CREATE INDEX IF NOT EXISTS recipients_complained_idx ON recipients (environment_id, complained_at, email)
  WHERE complained_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS recipients_unsubscribed_idx ON recipients (environment_id, unsubscribed_at, email)
  WHERE unsubscribed_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS recipients_hard_bounce_idx ON recipients (environment_id, last_hard_bounce_at, email)
  WHERE last_hard_bounce_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS recipients_manual_idx ON recipients (environment_id, manual_suppressed_at, email)
  WHERE manual_suppressed_at IS NOT NULL;

-- An operator's suppression before this change (`mailsvc admin recipients suppress`) set
-- suppressed_until: it is a manual one now, so the list names it as such, only an operator or the
-- app lifts it as a manual one, and a bounce's own suppression stays apart from it. It is one where
-- no hard bounce was recorded, or one ending later than any bounce could have made it (30 days
-- after the last bounce: domain/recipients/bounce-policy.ts). When it began was not recorded: the
-- row's last change stands for it.
UPDATE recipients
   SET manual_suppressed_at = updated_at, manual_suppressed_until = suppressed_until,
       suppressed_until = NULL
 WHERE suppressed_until IS NOT NULL
   AND (last_hard_bounce_at IS NULL OR suppressed_until > last_hard_bounce_at + interval '30 days');
