-- POST /v1/send/batch (DESIGN.md §12): an Idempotency-Key on a batch replays its whole answer, kept
-- with the key's record (message_id and bulk_job_id are NULL for a batch).
ALTER TABLE idempotency_keys ADD COLUMN response jsonb;
