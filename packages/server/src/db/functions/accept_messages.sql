-- Group commit of the accept step of POST /v1/send (DESIGN.md §3 steps 10 and 11): one call
-- accepts a batch of sends in one statement, so in one transaction with one commit flush and
-- one update of each usage counter row per environment, instead of one transaction per send.
-- (First created in migrations/0004_accept_batch.sql; this file replaces it on every migrate.)
--
-- p_items: a JSON array of sends (keys as in the jsonb_to_record column list below;
-- request_sha256 in hex; idempotency_key NULL without an Idempotency-Key). Returns one row per
-- item: idx (its 0-based position in p_items) and outcome:
--   'accepted'           message, accepted event, idempotency record and usage written;
--   'idempotency_taken'  a live record holds the key (committed earlier, or an earlier item of
--                        this batch): nothing written, the caller replays that record;
--   'quota_exceeded'     no overage and the monthly limit is reached: nothing written for it.
-- Nothing is raised for a refusal, so a refused item does not undo the others; any error
-- (constraint, connection) undoes the whole batch. Every timestamp comes from the item.
--
-- The quota is reserve_usage() (reserve_usage.sql), the rule bulk sends use too: per
-- (tenant, period, environment) group it reserves as many of the group's items as fit; items are
-- accepted in order while the grant lasts, the rest are refused; what items whose key was taken
-- did not use is given back before the group ends.
--
-- Deadlock freedom. Items are processed sorted by (tenant_id, period, environment_id,
-- idempotency_key, position). reserve_usage() locks the tenant's counter row first and the lock
-- is held until commit; an idempotency key of a tenant is claimed only while its counter lock is
-- held. So counter locks are taken in ascending order and nobody else can hold those keys: waits
-- happen only on counter locks, in one global order. (A tenant whose plan has limit 0 and no
-- overage takes no lock and writes nothing: every item of it is refused.)
CREATE OR REPLACE FUNCTION accept_messages(p_items jsonb) RETURNS TABLE (idx integer, outcome text)
LANGUAGE plpgsql
AS $$
DECLARE
  r          record;
  v_tenant   text;
  v_period   text;
  v_env      text;
  v_granted  integer := 0;  -- reserved for the current group
  v_accepted integer := 0;  -- accepted in the current group
BEGIN
  FOR r IN
    SELECT (e.ord - 1)::integer AS n, x.*,
           count(*) OVER (PARTITION BY x.tenant_id, x.period, x.environment_id)::integer AS group_size
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
    IF v_env IS DISTINCT FROM r.environment_id OR v_tenant IS DISTINCT FROM r.tenant_id
       OR v_period IS DISTINCT FROM r.period THEN
      -- Leaving a group: give back what it did not use; entering one: reserve for all its items.
      IF v_granted > v_accepted THEN
        PERFORM reserve_usage(v_tenant, v_env, v_period, v_accepted - v_granted, true);
      END IF;
      v_tenant := r.tenant_id;
      v_period := r.period;
      v_env := r.environment_id;
      v_granted := reserve_usage(v_tenant, v_env, v_period, r.group_size, true);
      v_accepted := 0;
    END IF;

    idx := r.n;

    -- 10. quota
    IF v_accepted >= v_granted THEN
      outcome := 'quota_exceeded';
      RETURN NEXT;
      CONTINUE;
    END IF;

    -- 11. accept. Claim the Idempotency-Key, or take over one whose 24 hours have passed; a live
    -- record (committed earlier, or written by an earlier item of this batch) is replayed.
    IF r.idempotency_key IS NOT NULL THEN
      INSERT INTO idempotency_keys (environment_id, key, request_sha256, message_id, bulk_job_id,
                                    created_at, expires_at)
      VALUES (r.environment_id, r.idempotency_key, decode(r.request_sha256, 'hex'), r.id, NULL,
              r.now, r.idempotency_expires)
      ON CONFLICT (environment_id, key) DO UPDATE
        SET request_sha256 = EXCLUDED.request_sha256, message_id = EXCLUDED.message_id,
            bulk_job_id = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
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

    v_accepted := v_accepted + 1;
    outcome := 'accepted';
    RETURN NEXT;
  END LOOP;

  IF v_granted > v_accepted THEN
    PERFORM reserve_usage(v_tenant, v_env, v_period, v_accepted - v_granted, true);
  END IF;
END
$$;
