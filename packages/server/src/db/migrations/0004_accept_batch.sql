-- Group commit of the accept step of POST /v1/send (DESIGN.md §3 steps 10 and 11): one call
-- accepts a batch of sends in one statement, so in one transaction with one commit flush and
-- one update of each usage counter row, instead of one transaction per send. The counter rows
-- are hot (every send of a tenant updates the same row and holds its lock until its commit is
-- on disk), so one flush per batch instead of one per send is what lets a tenant go faster than
-- one send per fsync.
--
-- p_items: a JSON array of sends (keys as in the jsonb_to_record column list below;
-- request_sha256 in hex; idempotency_key NULL without an Idempotency-Key). Returns one row per
-- item: idx (its 0-based position in p_items) and outcome:
--   'accepted'           message, accepted event, idempotency record and usage written;
--   'idempotency_taken'  a live record holds the key (committed earlier, or an earlier item of
--                        this batch): nothing written, the caller replays that record;
--   'quota_exceeded'     no overage and the monthly limit is reached: nothing written for it.
-- Nothing is raised for a refusal, so a refused item does not undo the others; any error
-- (constraint, connection) undoes the whole batch.
--
-- Every timestamp comes from the item (the caller's clock), never now().
--
-- Deadlock freedom. Items are processed sorted by (tenant_id, period, environment_id,
-- idempotency_key, position), here, whatever order the caller gives. For each (tenant, period)
-- the first thing written is the tenant_usage row, locked with SELECT … FOR UPDATE (created
-- first if missing); that lock is held until commit. So every accept transaction takes tenant
-- counter locks in ascending order, and touches an environment_usage row or an idempotency key
-- of a tenant only while it already holds that tenant's counter lock — nobody else can be
-- holding those rows then (any other writer of them holds the same counter lock first), so
-- those never wait. Waits happen only on the counter locks, in one global order: no cycle.
-- Messages and events are new rows. (A tenant whose plan has limit 0 and no overage takes no
-- lock and writes nothing: every item of it is refused.)
--
-- The quota: the check of each item sees the committed count (read under the lock) plus the
-- items already accepted in this batch, so the tenant never passes a no-overage limit, across
-- batches, connections and API processes alike.

CREATE FUNCTION accept_messages(p_items jsonb) RETURNS TABLE (idx integer, outcome text)
LANGUAGE plpgsql
AS $$
DECLARE
  r           record;
  v_tenant    text;     -- the (tenant, period) whose counter row is locked, and its environment
  v_period    text;
  v_env       text;
  v_limit     integer;
  v_overage   boolean;
  v_used      integer;  -- the tenant's committed count, read under the lock
  v_t_added   integer := 0;  -- accepted in this batch for v_tenant/v_period, not yet written
  v_e_added   integer := 0;  -- the same for v_env
BEGIN
  FOR r IN
    SELECT (e.ord - 1)::integer AS n, x.*
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e (item, ord),
           jsonb_to_record(e.item) AS x (
             id text, tenant_id text, project_id text, environment_id text, api_key_id text,
             template_id text, template_version text, category text, priority smallint,
             to_email text, from_email text, from_name text, reply_to text,
             sending_domain text, data jsonb, expires_at timestamptz, event_id text,
             period text, now timestamptz, idempotency_key text, request_sha256 text,
             idempotency_expires timestamptz)
     ORDER BY x.tenant_id, x.period, x.environment_id, x.idempotency_key, e.ord
  LOOP
    -- Leaving an environment (or tenant, or period): write its accumulated usage.
    IF v_env IS DISTINCT FROM r.environment_id OR v_tenant IS DISTINCT FROM r.tenant_id
       OR v_period IS DISTINCT FROM r.period THEN
      IF v_e_added > 0 THEN
        INSERT INTO environment_usage (environment_id, tenant_id, period, sent)
        VALUES (v_env, v_tenant, v_period, v_e_added)
        ON CONFLICT (environment_id, period) DO UPDATE SET sent = environment_usage.sent + EXCLUDED.sent;
      END IF;
      v_e_added := 0;
      v_env := r.environment_id;
    END IF;

    -- Entering a tenant (or period): write the previous one's count, lock this one's counter.
    IF v_tenant IS DISTINCT FROM r.tenant_id OR v_period IS DISTINCT FROM r.period THEN
      IF v_t_added > 0 THEN
        UPDATE tenant_usage SET sent = sent + v_t_added WHERE tenant_id = v_tenant AND period = v_period;
      END IF;
      v_t_added := 0;
      v_tenant := r.tenant_id;
      v_period := r.period;
      SELECT pl.monthly_limit, pl.overage_allowed INTO STRICT v_limit, v_overage
        FROM tenants t JOIN plans pl ON pl.id = t.plan_id
       WHERE t.id = v_tenant;
      v_used := 0;
      IF v_limit > 0 OR v_overage THEN
        INSERT INTO tenant_usage (tenant_id, period, sent) VALUES (v_tenant, v_period, 0)
        ON CONFLICT (tenant_id, period) DO NOTHING;
        SELECT tu.sent INTO STRICT v_used FROM tenant_usage tu
         WHERE tu.tenant_id = v_tenant AND tu.period = v_period
           FOR UPDATE;
      END IF;
    END IF;

    idx := r.n;

    -- 10. quota: the committed count plus what this batch accepted so far.
    IF NOT v_overage AND v_used + v_t_added >= v_limit THEN
      outcome := 'quota_exceeded';
      RETURN NEXT;
      CONTINUE;
    END IF;

    -- 11. accept. Claim the Idempotency-Key, or take over one whose 24 hours have passed; a live
    -- record (committed earlier, or written by an earlier item of this batch) is replayed.
    IF r.idempotency_key IS NOT NULL THEN
      INSERT INTO idempotency_keys (environment_id, key, request_sha256, message_id, created_at, expires_at)
      VALUES (r.environment_id, r.idempotency_key, decode(r.request_sha256, 'hex'), r.id, r.now,
              r.idempotency_expires)
      ON CONFLICT (environment_id, key) DO UPDATE
        SET request_sha256 = EXCLUDED.request_sha256, message_id = EXCLUDED.message_id,
            created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
        WHERE idempotency_keys.expires_at <= r.now;
      IF NOT FOUND THEN
        outcome := 'idempotency_taken';
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;

    -- The message (also the queue entry) and its accepted event.
    INSERT INTO messages (id, tenant_id, project_id, environment_id, api_key_id, template_id,
                          template_version, category, priority, to_email, from_email, from_name,
                          reply_to, sending_domain, data, next_attempt_at, expires_at, created_at,
                          updated_at)
    VALUES (r.id, r.tenant_id, r.project_id, r.environment_id, r.api_key_id, r.template_id,
            r.template_version, r.category, r.priority, r.to_email, r.from_email, r.from_name,
            r.reply_to, r.sending_domain, r.data, r.now, r.expires_at, r.now, r.now);

    INSERT INTO message_events (id, message_id, tenant_id, type, details, created_at)
    VALUES (r.event_id, r.id, r.tenant_id, 'accepted', '{}'::jsonb, r.now);

    v_t_added := v_t_added + 1;
    v_e_added := v_e_added + 1;
    outcome := 'accepted';
    RETURN NEXT;
  END LOOP;

  -- The last environment's and tenant's usage.
  IF v_e_added > 0 THEN
    INSERT INTO environment_usage (environment_id, tenant_id, period, sent)
    VALUES (v_env, v_tenant, v_period, v_e_added)
    ON CONFLICT (environment_id, period) DO UPDATE SET sent = environment_usage.sent + EXCLUDED.sent;
  END IF;
  IF v_t_added > 0 THEN
    UPDATE tenant_usage SET sent = sent + v_t_added WHERE tenant_id = v_tenant AND period = v_period;
  END IF;
END
$$;
