-- The quota rule (DESIGN.md §3 "Quota", §7): reserve monthly usage for p_count messages of one
-- environment, for POST /v1/send (accept_messages.sql) and POST /v1/contacts/send alike. The rule in
-- words, and what is reported: domain/quota/quota-rule.ts; re-applied on every migrate (db/migrate.ts).
--
-- Locks the tenant's counter row for the period (created when missing) and holds the lock until
-- commit, so under any concurrency a tenant whose plan allows no overage never passes its limit.
-- Returns how many messages were granted:
--   p_partial true:  as many as fit (0..p_count), the first ones in the caller's order;
--   p_partial false: p_count or 0 (a bulk job is queued whole or not at all);
--   p_count = 0:     grants nothing but takes the counter lock (a bulk send holds it before it
--                    claims its Idempotency-Key, as accept_messages does);
--   p_count < 0:     gives back -p_count messages reserved earlier in the same transaction (no
--                    check), returns p_count.
-- A plan with limit 0 and no overage grants nothing and takes no lock.
CREATE OR REPLACE FUNCTION reserve_usage(
  p_tenant text, p_environment text, p_period text, p_count integer, p_partial boolean)
RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
  v_limit   integer;
  v_overage boolean;
  v_used    integer;
  v_grant   integer;
BEGIN
  IF p_count >= 0 THEN
    SELECT pl.monthly_limit, pl.overage_allowed INTO STRICT v_limit, v_overage
      FROM tenants t JOIN plans pl ON pl.id = t.plan_id
     WHERE t.id = p_tenant;
    IF v_limit = 0 AND NOT v_overage THEN
      RETURN 0;
    END IF;
    INSERT INTO tenant_usage (tenant_id, period, sent) VALUES (p_tenant, p_period, 0)
    ON CONFLICT (tenant_id, period) DO NOTHING;
    SELECT tu.sent INTO STRICT v_used FROM tenant_usage tu
     WHERE tu.tenant_id = p_tenant AND tu.period = p_period
       FOR UPDATE;
    IF v_overage OR p_count = 0 THEN
      v_grant := p_count;
    ELSE
      v_grant := greatest(0, least(p_count, v_limit - v_used));
      IF v_grant < p_count AND NOT p_partial THEN
        v_grant := 0;
      END IF;
    END IF;
    IF v_grant = 0 THEN
      RETURN 0;
    END IF;
  ELSE
    -- A give-back: both rows exist (the reservation wrote them).
    UPDATE tenant_usage SET sent = sent + p_count WHERE tenant_id = p_tenant AND period = p_period;
    UPDATE environment_usage SET sent = sent + p_count
     WHERE environment_id = p_environment AND period = p_period;
    RETURN p_count;
  END IF;
  UPDATE tenant_usage SET sent = sent + v_grant WHERE tenant_id = p_tenant AND period = p_period;
  INSERT INTO environment_usage (environment_id, tenant_id, period, sent)
  VALUES (p_environment, p_tenant, p_period, v_grant)
  ON CONFLICT (environment_id, period) DO UPDATE SET sent = environment_usage.sent + EXCLUDED.sent;
  RETURN v_grant;
END
$$;
