-- Two indexes of the webhook queue no statement needs since the claim probes each endpoint's own
-- ranges (webhook_deliveries_endpoint_due_idx, _endpoint_lease_idx): every claim and every record
-- changes a delivery's status, so each index kept is written at each of them (bench/RESULTS.md,
-- webhooks). The oldest-due gauge reads the per-endpoint index too (metrics.ts).
DROP INDEX IF EXISTS webhook_deliveries_due_idx;
DROP INDEX IF EXISTS webhook_deliveries_lease_idx;
