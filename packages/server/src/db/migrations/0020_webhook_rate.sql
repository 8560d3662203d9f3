-- A webhook endpoint's rate cap (DESIGN.md §11, issue 27 item 7): at most rate_limit_per_second
-- deliveries started per second, across every worker process, as a token bucket the claim
-- (claim_webhook_deliveries(), serialised by its advisory lock) refills and spends. NULL: no cap
-- beyond the per-endpoint concurrency.
ALTER TABLE webhook_endpoints ADD COLUMN rate_limit_per_second integer
  CHECK (rate_limit_per_second IS NULL OR rate_limit_per_second BETWEEN 1 AND 1000);
ALTER TABLE webhook_endpoints ADD COLUMN rate_tokens double precision NOT NULL DEFAULT 0;
ALTER TABLE webhook_endpoints ADD COLUMN rate_refilled_at timestamptz;
