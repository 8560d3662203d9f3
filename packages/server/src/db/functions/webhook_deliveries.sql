-- The webhook runner's claim and record steps (webhooks/webhook-worker.ts), the counterparts of
-- claim_messages() and record_attempts() for the webhook_deliveries queue.

-- Claims due deliveries (and those whose worker's lease ran out) under a lease. A delivery waits
-- while an earlier one of the same subject (order_key: a message, a recipient, a bulk send) to the
-- same endpoint is open (pending or sending), so one subject's events reach an endpoint in order.
-- Each endpoint gets at most p_per_endpoint deliveries in flight, counted across every worker
-- process, and is served from its own due deliveries: one endpoint's backlog never fills the
-- claim and holds back another tenant's events. A disabled endpoint's deliveries wait, but for
-- its test events. An endpoint with a rate cap also gets no more deliveries than its token bucket
-- holds (rate_limit_per_second, refilled by the time since the last claim, at most one second's
-- worth), and the claim spends what it took.
DROP FUNCTION IF EXISTS claim_webhook_deliveries(timestamptz, integer, timestamptz, text, integer);
CREATE FUNCTION claim_webhook_deliveries(
  p_now timestamptz, p_limit integer, p_locked_until timestamptz, p_claim_token text,
  p_per_endpoint integer)
RETURNS TABLE (
  id bigint, event_id text, endpoint_id text, environment_id text, tenant_id text, attempts integer,
  url text, secret text, previous_secret text, previous_secret_until timestamptz,
  type text, data jsonb, occurred_at timestamptz, claim_token text, failing_since timestamptz)
LANGUAGE plpgsql
-- Planning this statement took ~1 ms against ~0.1 ms to run it, at every claim: one plan per
-- connection, whatever the parameters (bench/RESULTS.md, webhooks).
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
  -- One claim at a time, across processes: the statement below, taken after the lock, sees what
  -- the claims before it committed, so its count of the deliveries in flight per endpoint is
  -- exact (two overlapping claims would each see the other's as still pending).
  PERFORM pg_advisory_xact_lock(hashtext('mailsvc.claim_webhook_deliveries'));
  -- message events noted since the last claim become deliveries first (webhook_outbox.sql): up to
  -- 2,000 a claim, so a runner that finds nothing to deliver (notes of environments without an
  -- endpoint) still clears them at 4,000 a second between its polls
  FOR i IN 1..4 LOOP
    EXIT WHEN fan_out_webhook_events(500) < 500;
  END LOOP;
  RETURN QUERY
  WITH due_endpoints AS (
    SELECT w.id, w.enabled, w.rate_limit_per_second AS rate, b.tokens,
           LEAST(p_per_endpoint - (SELECT count(*) FROM webhook_deliveries s
                                    WHERE s.endpoint_id = w.id AND s.status = 'sending'
                                      AND s.locked_until >= p_now)::integer,
                 COALESCE(floor(b.tokens)::integer, p_per_endpoint)) AS room
      FROM webhook_endpoints w
      CROSS JOIN LATERAL (
        SELECT CASE WHEN w.rate_refilled_at IS NULL THEN w.rate_limit_per_second::double precision
                    ELSE LEAST(w.rate_limit_per_second::double precision,
                               w.rate_tokens + w.rate_limit_per_second
                                 * GREATEST(0, extract(epoch FROM p_now - w.rate_refilled_at)))
               END AS tokens
      ) b
     -- probes of each endpoint's index ranges: LIMIT 1, never a hash of every due delivery (a
     -- generic plan chose one: a claim read the whole backlog); ORDER BY the index's column, never
     -- a scan of the table (chosen under statistics from before a burst: a claim read every
     -- delivery already made)
     WHERE (SELECT true FROM webhook_deliveries d
             WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= p_now
             ORDER BY d.next_attempt_at LIMIT 1)
        OR (SELECT true FROM webhook_deliveries d
             WHERE d.endpoint_id = w.id AND d.status = 'sending' AND d.locked_until < p_now
             ORDER BY d.locked_until LIMIT 1)
  ), stale AS (
    -- a crashed worker's deliveries (their lease ran out), then the due ones oldest first: two
    -- index ranges per endpoint rather than one scan and sort of an OR
    SELECT c.id, c.next_attempt_at, e.id AS endpoint_id, 0 AS rank FROM due_endpoints e
    CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
       WHERE d.endpoint_id = e.id AND d.status = 'sending' AND d.locked_until < p_now
         AND (e.enabled OR d.event_type = 'webhook.test')
       ORDER BY d.locked_until
       LIMIT GREATEST(e.room, 0)
       FOR UPDATE OF d SKIP LOCKED
    ) c
    WHERE e.room > 0
  ), due AS (
    SELECT c.id, c.next_attempt_at, e.id AS endpoint_id, 1 AS rank FROM due_endpoints e
    CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
       WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= p_now
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
  ), picked AS (
    SELECT x.id, x.next_attempt_at, x.endpoint_id FROM (
      SELECT y.id, y.next_attempt_at, y.endpoint_id, e.room,
             row_number() OVER (PARTITION BY y.endpoint_id ORDER BY y.rank, y.next_attempt_at) AS n
        FROM (SELECT * FROM stale UNION ALL SELECT * FROM due) y
        JOIN due_endpoints e ON e.id = y.endpoint_id
    ) x
    WHERE x.n <= x.room
    ORDER BY x.next_attempt_at
    LIMIT p_limit
  ), spent AS (
    -- the capped endpoints' buckets: refilled to now, less what this claim took
    UPDATE webhook_endpoints w
       SET rate_tokens = e.tokens - (SELECT count(*) FROM picked p WHERE p.endpoint_id = e.id),
           rate_refilled_at = p_now
      FROM due_endpoints e
     WHERE w.id = e.id AND e.rate IS NOT NULL
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
DROP FUNCTION IF EXISTS record_webhook_attempts(jsonb, interval);
CREATE OR REPLACE FUNCTION record_webhook_attempts(
  p_items jsonb, p_disable_after interval, p_audit_id_prefix text)
RETURNS TABLE (endpoint_id text, environment_id text, tenant_id text, reason text)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
DECLARE
  v_disable jsonb;
  v_ids bigint[] := ARRAY(SELECT (x ->> 'delivery_id')::bigint FROM jsonb_array_elements(p_items) x);
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
    -- the ids as an array too: found through the primary key however small the table looks
    WHERE d.id = ANY (v_ids) AND d.id = i.delivery_id AND d.claim_token = i.claim_token
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
    -- only where the streak begins or ends: an endpoint's row is not rewritten at every record
    UPDATE webhook_endpoints w SET
      failing_since = CASE WHEN p.ok THEN NULL ELSE p.first_at END,
      updated_at = p.last_at
    FROM per_endpoint p
    WHERE w.id = p.endpoint_id AND (w.failing_since IS NULL) = NOT p.ok
  )
  -- the rows as they were before this statement: the streak's start is the one kept, or this one
  SELECT COALESCE(jsonb_agg(jsonb_build_object('id', c.id, 'reason', c.reason, 'at', c.last_at))
                    FILTER (WHERE c.reason IS NOT NULL), '[]'::jsonb)
    INTO v_disable
    FROM (SELECT w.id, p.last_at,
                 CASE WHEN p.gone THEN 'gone'
                      WHEN NOT p.ok AND COALESCE(w.failing_since, p.first_at) <= p.last_at - p_disable_after
                      THEN 'failing'
                 END AS reason
            FROM per_endpoint p JOIN webhook_endpoints w ON w.id = p.endpoint_id) c;

  -- A statement of its own: it re-checks `enabled` (and a failing streak) against the latest row,
  -- so of two workers recording a 410 for one endpoint at once only one disables it, and an
  -- endpoint enabled again while this recorded is not disabled by what it read before; it audits
  -- the change in the same statement (the record needs no transaction of its own), at the time of
  -- the attempt that caused it. p_audit_id_prefix: the 10 time characters of the audit events'
  -- ULID ids. Most records disable nothing: then not even planned and started.
  IF v_disable = '[]'::jsonb THEN
    RETURN;
  END IF;
  RETURN QUERY
  WITH disabled AS (
    UPDATE webhook_endpoints w SET enabled = false, disabled_reason = c.reason, disabled_at = c.at,
                                   updated_at = GREATEST(w.updated_at, c.at)
      FROM jsonb_to_recordset(v_disable) AS c(id text, reason text, at timestamptz)
     WHERE w.id = c.id AND w.enabled
       AND (c.reason = 'gone' OR w.failing_since <= c.at - p_disable_after)
    RETURNING w.id, w.environment_id, w.tenant_id, w.disabled_reason, w.updated_at
  ), audited AS (
    INSERT INTO audit_events (id, tenant_id, environment_id, actor, action, target_type, target_id,
                              details, created_at)
    SELECT 'evt_' || p_audit_id_prefix || ulid_random_part(gen_random_uuid()), d.tenant_id,
           d.environment_id, 'system', 'webhook_endpoint.disabled', 'webhook_endpoint', d.id,
           jsonb_build_object('reason', d.disabled_reason, 'why',
             CASE d.disabled_reason WHEN 'gone' THEN 'the endpoint answered 410 Gone'
                  ELSE format('every delivery failed for %s', p_disable_after) END),
           d.updated_at
      FROM disabled d
  )
  SELECT d.id, d.environment_id, d.tenant_id, d.disabled_reason FROM disabled d;
END
$$;

-- The runner's one round trip (webhooks/webhook-worker.ts): records the attempts that ended since
-- the last call, then claims, in one statement, so a slot an attempt freed is filled without a
-- second round trip and the count of deliveries in flight per endpoint already leaves out the ones
-- just recorded. The claim's lock is taken first: the record updates endpoint rows that a claim
-- (a capped endpoint's bucket) updates too, and under the lock the two never wait on each other
-- across processes. p_items as record_webhook_attempts() takes them (may be empty); p_limit 0:
-- record only. One row: the claimed deliveries (claim_webhook_deliveries()'s columns) and the
-- endpoints the record disabled (record_webhook_attempts()'s), as JSON arrays.
DROP FUNCTION IF EXISTS record_and_claim_webhook_deliveries(jsonb, interval, text, timestamptz, integer,
  timestamptz, text, integer);
CREATE FUNCTION record_and_claim_webhook_deliveries(
  p_items jsonb, p_disable_after interval, p_audit_id_prefix text,
  p_now timestamptz, p_limit integer, p_locked_until timestamptz, p_claim_token text,
  p_per_endpoint integer)
RETURNS TABLE (claimed jsonb, disabled jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
  v_claimed jsonb := '[]'::jsonb;
  v_disabled jsonb := '[]'::jsonb;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('mailsvc.claim_webhook_deliveries'));
  IF jsonb_array_length(p_items) > 0 THEN
    SELECT COALESCE(jsonb_agg(to_jsonb(r)), '[]'::jsonb) INTO v_disabled
      FROM record_webhook_attempts(p_items, p_disable_after, p_audit_id_prefix) r;
  END IF;
  IF p_limit > 0 THEN
    SELECT COALESCE(jsonb_agg(to_jsonb(c)), '[]'::jsonb) INTO v_claimed
      FROM claim_webhook_deliveries(p_now, p_limit, p_locked_until, p_claim_token, p_per_endpoint) c;
  END IF;
  RETURN QUERY SELECT v_claimed, v_disabled;
END
$$;
