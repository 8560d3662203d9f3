-- The accept step of POST /v1/send (DESIGN.md §3 step 11) as one function, so that an accept is
-- one statement: one round trip, and one implicit transaction that commits as the call returns.
--
-- Returns 'accepted' or 'idempotency_taken' (another request holds the Idempotency-Key: the
-- caller replays it). When the monthly quota is used up and the plan allows no overage it
-- raises SQLSTATE 'MSQ01' (repositories/send.ts maps it to quota_exceeded), which undoes every
-- row written before the check.
--
-- The usage counters are the hot rows (every send of a tenant updates the same one): they are
-- updated last, so their row locks are held only until the commit that follows at once.
-- Every timestamp is a parameter (the caller's clock), never now().
CREATE FUNCTION accept_message(
  p_id                   text,
  p_tenant_id            text,
  p_project_id           text,
  p_environment_id       text,
  p_api_key_id           text,
  p_template_id          text,
  p_template_version     text,
  p_category             text,
  p_priority             smallint,
  p_to_email             text,
  p_from_email           text,
  p_from_name            text,
  p_reply_to             text,
  p_sending_domain       text,
  p_data                 jsonb,
  p_expires_at           timestamptz,
  p_event_id             text,
  p_period               text,
  p_now                  timestamptz,
  p_idempotency_key      text,        -- NULL: no Idempotency-Key
  p_request_sha256       bytea,
  p_idempotency_expires  timestamptz
) RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
  v_limit   integer;
  v_overage boolean;
BEGIN
  -- The tenant's current plan.
  SELECT pl.monthly_limit, pl.overage_allowed INTO STRICT v_limit, v_overage
    FROM tenants t JOIN plans pl ON pl.id = t.plan_id
   WHERE t.id = p_tenant_id;

  -- 1. Claim the Idempotency-Key, or take over one whose 24 hours have passed. A concurrent
  -- holder makes this wait until it commits (or rolls back); if its record is live, nothing is
  -- written here and the caller replays that record.
  IF p_idempotency_key IS NOT NULL THEN
    INSERT INTO idempotency_keys (environment_id, key, request_sha256, message_id, created_at, expires_at)
    VALUES (p_environment_id, p_idempotency_key, p_request_sha256, p_id, p_now, p_idempotency_expires)
    ON CONFLICT (environment_id, key) DO UPDATE
      SET request_sha256 = EXCLUDED.request_sha256, message_id = EXCLUDED.message_id,
          created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= p_now;
    IF NOT FOUND THEN
      RETURN 'idempotency_taken';
    END IF;
  END IF;

  -- 2. The message (also the queue entry) and its accepted event.
  INSERT INTO messages (id, tenant_id, project_id, environment_id, api_key_id, template_id,
                        template_version, category, priority, to_email, from_email, from_name,
                        reply_to, sending_domain, data, next_attempt_at, expires_at, created_at,
                        updated_at)
  VALUES (p_id, p_tenant_id, p_project_id, p_environment_id, p_api_key_id, p_template_id,
          p_template_version, p_category, p_priority, p_to_email, p_from_email, p_from_name,
          p_reply_to, p_sending_domain, p_data, p_now, p_expires_at, p_now, p_now);

  INSERT INTO message_events (id, message_id, tenant_id, type, details, created_at)
  VALUES (p_event_id, p_id, p_tenant_id, 'accepted', '{}'::jsonb, p_now);

  -- 3. Usage of the environment, then of the tenant (always in this order, so two accepts
  -- cannot deadlock). The tenant counter only moves below the limit unless overage is allowed;
  -- a concurrent accept waits for the row lock and re-checks the limit on the committed count,
  -- so the tenant never passes a no-overage limit.
  INSERT INTO environment_usage (environment_id, tenant_id, period, sent)
  VALUES (p_environment_id, p_tenant_id, p_period, 1)
  ON CONFLICT (environment_id, period) DO UPDATE SET sent = environment_usage.sent + 1;

  INSERT INTO tenant_usage (tenant_id, period, sent)
  SELECT p_tenant_id, p_period, 1
   WHERE v_limit > 0 OR v_overage
  ON CONFLICT (tenant_id, period) DO UPDATE SET sent = tenant_usage.sent + 1
    WHERE tenant_usage.sent < v_limit OR v_overage;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'MSQ01', MESSAGE = 'monthly_quota_exceeded';
  END IF;

  RETURN 'accepted';
END
$$;
