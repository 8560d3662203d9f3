-- The webhook runner's claim and record steps (webhooks/webhook-worker.ts), the counterparts of
-- claim_messages() and record_attempts() for the webhook_deliveries queue.

-- Claims due deliveries (and those whose worker's lease ran out) under a lease. A delivery waits
-- while an earlier one of the same subject (order_key: a message, a recipient, a bulk send) to the
-- same endpoint is open (pending or sending), so one subject's events reach an endpoint in order.
-- Each endpoint gets at most p_per_endpoint deliveries in flight, counted across every worker
-- process, and is served from its own due deliveries: one endpoint's backlog never fills the
-- claim and holds back another tenant's events. A disabled endpoint's deliveries wait, but for
-- its test events.
DROP FUNCTION IF EXISTS claim_webhook_deliveries(timestamptz, integer, timestamptz, text, integer);
CREATE FUNCTION claim_webhook_deliveries(
  p_now timestamptz, p_limit integer, p_locked_until timestamptz, p_claim_token text,
  p_per_endpoint integer)
RETURNS TABLE (
  id bigint, event_id text, endpoint_id text, environment_id text, tenant_id text, attempts integer,
  url text, secret text, previous_secret text, previous_secret_until timestamptz,
  type text, data jsonb, occurred_at timestamptz, claim_token text, failing_since timestamptz)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
  -- One claim at a time, across processes: the statement below, taken after the lock, sees what
  -- the claims before it committed, so its count of the deliveries in flight per endpoint is
  -- exact (two overlapping claims would each see the other's as still pending).
  PERFORM pg_advisory_xact_lock(hashtext('mailsvc.claim_webhook_deliveries'));
  RETURN QUERY
  WITH due_endpoints AS (
    SELECT w.id, w.enabled,
           p_per_endpoint - (SELECT count(*) FROM webhook_deliveries s
                              WHERE s.endpoint_id = w.id AND s.status = 'sending'
                                AND s.locked_until >= p_now)::integer AS room
      FROM webhook_endpoints w
     WHERE EXISTS (SELECT 1 FROM webhook_deliveries d
                    WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= p_now)
        OR EXISTS (SELECT 1 FROM webhook_deliveries d
                    WHERE d.endpoint_id = w.id AND d.status = 'sending' AND d.locked_until < p_now)
  ), picked AS (
    SELECT c.id, c.next_attempt_at FROM due_endpoints e
    CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
       WHERE d.endpoint_id = e.id
         AND ((d.status = 'pending' AND d.next_attempt_at <= p_now)
              OR (d.status = 'sending' AND d.locked_until < p_now))
         AND (e.enabled OR d.event_type = 'webhook.test')
         AND (d.order_key IS NULL OR NOT EXISTS (
               SELECT 1 FROM webhook_deliveries o
                WHERE o.endpoint_id = d.endpoint_id AND o.order_key = d.order_key
                  AND o.status IN ('pending', 'sending')
                  AND (o.occurred_at, o.id) < (d.occurred_at, d.id)))
       ORDER BY d.next_attempt_at
       LIMIT GREATEST(e.room, 0)
       FOR UPDATE OF d SKIP LOCKED
    ) c
    WHERE e.room > 0
    ORDER BY c.next_attempt_at
    LIMIT p_limit
  )
  UPDATE webhook_deliveries d
     SET status = 'sending', locked_until = p_locked_until, claim_token = p_claim_token, updated_at = p_now
    FROM webhook_endpoints w, webhook_events ev
   WHERE d.id IN (SELECT picked.id FROM picked) AND w.id = d.endpoint_id AND ev.id = d.event_id
  RETURNING d.id, d.event_id, d.endpoint_id, d.environment_id, ev.tenant_id, d.attempts, w.url,
            w.secret, w.previous_secret, w.previous_secret_until, ev.type, ev.data, ev.created_at,
            d.claim_token, w.failing_since;
END
$$;

-- Records attempts in one statement. p_items: a JSON array of {delivery_id, claim_token,
-- attempt_id, outcome (succeeded|failed), status_code, response_body, latency_ms, error,
-- next_attempt_at (a failure's retry; NULL: no more attempts), gone (the endpoint answered 410),
-- now}. A delivery whose claim token no longer matches (its lease was lost) is left alone. Each
-- endpoint's failing_since is cleared by a success and set by a first failure; a 410, or failures
-- since more than p_disable_after, disable it. Returns the endpoints this disabled.
CREATE OR REPLACE FUNCTION record_webhook_attempts(p_items jsonb, p_disable_after interval)
RETURNS TABLE (endpoint_id text, environment_id text, tenant_id text, reason text)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
  v_disable jsonb;
BEGIN
  WITH input AS (
    SELECT * FROM jsonb_to_recordset(p_items) AS x(
      delivery_id bigint, claim_token text, attempt_id text, outcome text, status_code integer,
      response_body text, latency_ms integer, error text, next_attempt_at timestamptz, gone boolean,
      now timestamptz)
  ), updated AS (
    UPDATE webhook_deliveries d SET
      status = CASE WHEN i.outcome = 'succeeded' THEN 'succeeded'
                    WHEN i.next_attempt_at IS NULL OR i.gone THEN 'failed' ELSE 'pending' END,
      attempts = d.attempts + 1,
      next_attempt_at = COALESCE(i.next_attempt_at, d.next_attempt_at),
      locked_until = NULL, claim_token = NULL, updated_at = i.now
    FROM input i
    WHERE d.id = i.delivery_id AND d.claim_token = i.claim_token
    RETURNING d.id, d.endpoint_id, d.environment_id, d.event_id, d.event_type, d.attempts
  ), attempts AS (
    INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, environment_id, event_id, event_type,
                                  attempt, outcome, status_code, response_body, latency_ms, error,
                                  next_attempt_at, created_at)
    SELECT i.attempt_id, u.id, u.endpoint_id, u.environment_id, u.event_id, u.event_type, u.attempts,
           i.outcome, i.status_code, i.response_body, i.latency_ms, i.error,
           CASE WHEN i.gone THEN NULL ELSE i.next_attempt_at END, i.now
      FROM updated u JOIN input i ON i.delivery_id = u.id
  ), per_endpoint AS (
    SELECT u.endpoint_id, bool_or(i.outcome = 'succeeded') AS ok,
           bool_or(i.outcome = 'failed' AND i.gone) AS gone, min(i.now) AS first_at, max(i.now) AS last_at
      FROM updated u JOIN input i ON i.delivery_id = u.id
     GROUP BY u.endpoint_id
  ), streak AS (
    UPDATE webhook_endpoints w SET
      failing_since = CASE WHEN p.ok THEN NULL ELSE COALESCE(w.failing_since, p.first_at) END,
      updated_at = p.last_at
    FROM per_endpoint p
    WHERE w.id = p.endpoint_id
    -- failing_since here is the new value
    RETURNING w.id, CASE WHEN p.gone THEN 'gone'
                         WHEN NOT p.ok AND w.failing_since <= p.last_at - p_disable_after THEN 'failing'
                    END AS reason
  )
  SELECT COALESCE(jsonb_agg(jsonb_build_object('id', streak.id, 'reason', streak.reason))
                    FILTER (WHERE streak.reason IS NOT NULL), '[]'::jsonb)
    INTO v_disable FROM streak;

  -- A statement of its own: it re-checks `enabled` against the latest row, so of two workers
  -- recording a 410 for one endpoint at once only one disables it (and audits it).
  RETURN QUERY
  UPDATE webhook_endpoints w SET enabled = false, disabled_reason = c.reason
    FROM jsonb_to_recordset(v_disable) AS c(id text, reason text)
   WHERE w.id = c.id AND w.enabled
  RETURNING w.id, w.environment_id, w.tenant_id, w.disabled_reason;
END
$$;
