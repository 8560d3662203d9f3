-- Message events become webhook events after the transaction that records them (DESIGN.md §11,
-- "The outbox"): that transaction writes one row here per event an endpoint of its tenant may take;
-- the webhook runner's claim turns them into webhook_events rows and one delivery per subscribed
-- endpoint (fan_out_webhook_events()). The worker's record of a batch of outcomes no longer writes
-- an event row, its JSON and two deliveries with their indexes per message (bench/RESULTS.md,
-- "The outbox in the mail's record").
CREATE TABLE webhook_fanout (
  -- a message_events row: its id is the webhook event's id (webhook-id)
  message_event_id text PRIMARY KEY
);

-- The trigger's probe: an enabled endpoint of the event's tenant.
CREATE INDEX webhook_endpoints_tenant_enabled_idx ON webhook_endpoints (tenant_id) WHERE enabled;

-- When an endpoint was disabled: the fan-out still queues (to wait) the events that occurred while
-- it was enabled, as the outbox did when it queued them at once.
ALTER TABLE webhook_endpoints ADD COLUMN disabled_at timestamptz;
UPDATE webhook_endpoints SET disabled_at = updated_at WHERE NOT enabled;
