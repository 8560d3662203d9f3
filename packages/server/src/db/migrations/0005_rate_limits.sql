-- Per-API-key request rate of each plan (DESIGN.md §2, domain/auth/rate-limit.ts): requests per
-- second, and the burst a key may spend at once (the rate plus an allowance of burst − rate
-- requests per 10 seconds). 0 requests per second turns the limit off.
ALTER TABLE plans
  ADD COLUMN rate_limit_per_second integer NOT NULL DEFAULT 100 CHECK (rate_limit_per_second >= 0),
  ADD COLUMN rate_limit_burst integer NOT NULL DEFAULT 200;
ALTER TABLE plans
  ADD CONSTRAINT plans_rate_limit_burst_check CHECK (rate_limit_burst >= rate_limit_per_second);
