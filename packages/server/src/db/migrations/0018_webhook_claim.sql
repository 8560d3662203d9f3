-- Webhooks after review: the claim serves each endpoint from its own due deliveries
-- (claim_webhook_deliveries()), one index range per endpoint, oldest due first.
CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at)
  WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_lease_idx ON webhook_deliveries (endpoint_id, locked_until)
  WHERE status = 'sending';

-- The retention sweep's walk over finished deliveries, oldest first (db/repositories/retention.ts).
CREATE INDEX IF NOT EXISTS webhook_deliveries_finished_idx ON webhook_deliveries (updated_at)
  WHERE status IN ('succeeded', 'failed');
