-- The webhook outbox's cost in the transactions that write events (the worker's records above all;
-- bench/RESULTS.md, "The outbox in the mail's record"):
-- - an event's fields go from the trigger to the fan-out as a composite array, not as JSON built
--   and parsed again (queue_webhook_event_rows());
-- - a delivery's event is not checked by a foreign key: every delivery is written in the statement
--   that writes its event, or copied from a delivery of it (a replay, which never reaches events the
--   retention sweep may be deleting), and the sweep deletes an event only once none of its
--   deliveries is left; the check locked each new event row, a WAL record per event;
-- - webhook_events_environment_idx is read by no statement (the retention sweep walks the primary
--   key, lists go through the attempts).
CREATE TYPE webhook_event_input AS (
  id text, tenant_id text, environment_id text, type text, message_id text, data jsonb,
  created_at timestamptz);
ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_event_id_fkey;
DROP INDEX IF EXISTS webhook_events_environment_idx;
