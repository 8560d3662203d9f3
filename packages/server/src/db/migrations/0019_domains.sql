-- Sending domains verified by DNS (DESIGN.md §13): a lifecycle the worker's domain checker runs
-- (domains/domain-check-worker.ts), self-service through POST /v1/domains/*, DKIM key rotation.

-- One verified owner per domain across tenants: any tenant may claim a name (a pending claim blocks
-- no one), only one claim can be verified or degraded at a time, and a tenant claims a name once.
ALTER TABLE sending_domains DROP CONSTRAINT IF EXISTS sending_domains_domain_key;
CREATE UNIQUE INDEX sending_domains_tenant_domain ON sending_domains (tenant_id, domain);
CREATE UNIQUE INDEX sending_domains_verified_owner ON sending_domains (domain)
  WHERE status IN ('verified', 'degraded');

-- degraded: a required record was seen missing or wrong twice in a row; mail still signs and goes.
ALTER TABLE sending_domains DROP CONSTRAINT sending_domains_status_check;
ALTER TABLE sending_domains ADD CONSTRAINT sending_domains_status_check
  CHECK (status IN ('pending', 'verified', 'degraded', 'failed'));
-- degraded: the return path's MX or SPF was seen wrong twice; bounces go to MAILSVC_BOUNCE_DOMAIN.
ALTER TABLE sending_domains DROP CONSTRAINT sending_domains_return_path_status_check;
ALTER TABLE sending_domains ADD CONSTRAINT sending_domains_return_path_status_check
  CHECK (return_path_status IN ('pending', 'verified', 'degraded'));

-- When the current status began: a pending claim fails 72 h after it, a degraded domain after
-- MAILSVC_DOMAIN_GRACE_HOURS.
ALTER TABLE sending_domains ADD COLUMN status_since timestamptz;
UPDATE sending_domains SET status_since = updated_at;
ALTER TABLE sending_domains ALTER COLUMN status_since SET NOT NULL;
ALTER TABLE sending_domains ALTER COLUMN status_since SET DEFAULT now();
ALTER TABLE sending_domains ADD COLUMN verified_at timestamptz;
-- Checks in a row that saw a required record missing or wrong (the domain's DKIM; the return path).
ALTER TABLE sending_domains ADD COLUMN bad_checks integer NOT NULL DEFAULT 0;
ALTER TABLE sending_domains ADD COLUMN return_path_bad_checks integer NOT NULL DEFAULT 0;
-- What the last check found, per record (domains/dns-check.ts), and when it ran.
ALTER TABLE sending_domains ADD COLUMN last_check jsonb;
ALTER TABLE sending_domains ADD COLUMN last_checked_at timestamptz;
-- The checker's queue: due when next_check_at has passed; claimed under a lease (one checker at a
-- time per domain). NULL: not scheduled (failed; POST /v1/domains/verify restarts it).
ALTER TABLE sending_domains ADD COLUMN next_check_at timestamptz;
ALTER TABLE sending_domains ADD COLUMN check_locked_until timestamptz;
ALTER TABLE sending_domains ADD COLUMN check_claim_token text;
-- Every domain registered before this migration is checked at once.
UPDATE sending_domains SET next_check_at = now() WHERE status <> 'failed';
CREATE INDEX sending_domains_check_due_idx ON sending_domains (next_check_at)
  WHERE next_check_at IS NOT NULL;

-- DKIM rotation: the next key is published and checked before the signer switches to it; the
-- replaced key's selector is kept (and reported) for 7 days.
ALTER TABLE sending_domains ADD COLUMN dkim_created_at timestamptz;
UPDATE sending_domains SET dkim_created_at = created_at WHERE dkim_selector IS NOT NULL;
ALTER TABLE sending_domains ADD COLUMN dkim_next_selector text;
ALTER TABLE sending_domains ADD COLUMN dkim_next_private_key text;
ALTER TABLE sending_domains ADD COLUMN dkim_next_public_key text;
ALTER TABLE sending_domains ADD COLUMN dkim_old_selector text;
ALTER TABLE sending_domains ADD COLUMN dkim_old_public_key text;
ALTER TABLE sending_domains ADD COLUMN dkim_old_until timestamptz;
