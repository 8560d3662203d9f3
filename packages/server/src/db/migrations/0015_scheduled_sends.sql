-- Scheduled sends (DESIGN.md §12): a message accepted with scheduledAt waits as `scheduled`, out of
-- the delivery queue's index, until it falls due; the claim (claim_messages.sql) moves due ones to
-- `queued` first. scheduled_at keeps the due time for reads (next_attempt_at moves with retries).
ALTER TABLE messages ADD COLUMN scheduled_at timestamptz;
-- A new status. The constraint is added NOT VALID: the rows already there met the narrower one it
-- replaces, and validating them would scan the table while this migration's transaction holds its
-- lock (every accept and claim waiting); new and changed rows are checked as always.
ALTER TABLE messages DROP CONSTRAINT messages_status_check;
ALTER TABLE messages ADD CONSTRAINT messages_status_check CHECK (status IN
  ('scheduled', 'queued', 'sending', 'deferred', 'sent', 'delivered', 'bounced', 'failed',
   'suppressed', 'expired', 'complained', 'canceled')) NOT VALID;
-- The due scan of the claim: empty most of the time, one probe per claim. IF NOT EXISTS: on a large
-- table, build it CONCURRENTLY before upgrading (docs/operations.md).
CREATE INDEX IF NOT EXISTS messages_scheduled_idx ON messages (next_attempt_at) WHERE status = 'scheduled';
