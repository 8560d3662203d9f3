-- Group commit of POST /v1/send (DESIGN.md §3 steps 3, 7, 9, 10 and 11): one call accepts a
-- batch of sends in one statement, so in one transaction with one commit flush and one update of
-- each usage counter row per environment, instead of one transaction per send; and, for items that
-- ask for it, it also runs the checks that need the database, so a send costs one round trip.
-- (First created in db/migrations/0004_accept_batch.sql; this file replaces it on every migrate.)
--
-- p_items: a JSON array of sends (keys as in the jsonb_to_record column lists below;
-- request_sha256 in hex; idempotency_key NULL without an Idempotency-Key). Returns one row per
-- item: idx (its 0-based position in p_items), outcome, and:
--   'accepted'           message, accepted event, idempotency record and usage written;
--   'idempotency_taken'  a live record holds the key (committed earlier, or an earlier item of
--                        this batch): nothing written; held_sha256 and held_message_id name the
--                        record (the message id is NULL for a bulk send) and the caller replays
--                        it or answers 409 (step 3);
--   'refused'            the first check that refuses the send, in DESIGN.md §3 order, is
--                        `refusal` (step 7: choose_sending_domain()'s 'sending_domain_not_ready'
--                        or 'from_domain_not_allowed', with the chosen domain in sending_domain;
--                        step 9: recipient_refusal()'s code): nothing written, and the caller
--                        answers with that code without reading or checking anything again;
--   'quota_exceeded'     no overage and the monthly limit is reached: nothing written for it.
-- Nothing is raised for a refusal, so a refused item does not undo the others; any error
-- (constraint, connection) undoes the whole batch. Every timestamp comes from the item. Steps 4
-- to 6 and 8 need no database and run before, in domain/send/send-email.ts.

-- The quota is reserve_usage() (reserve_usage.sql), the rule bulk sends use too: per
-- (tenant, period, environment) group it reserves as many of the group's items as fit; items are
-- accepted in order while the grant lasts, the rest are refused; what refused items and items
-- whose key was taken did not use is given back before the group ends.
--
-- Deadlock freedom. Items are processed sorted by (tenant_id, period, environment_id,
-- idempotency_key, position). reserve_usage() locks the tenant's counter row first and the lock
-- is held until commit; an idempotency key of a tenant is claimed only while its counter lock is
-- held. So counter locks are taken in ascending order and nobody else can hold those keys: waits
-- happen only on counter locks, in one global order. (A tenant whose plan has limit 0 and no
-- overage takes no lock and writes nothing: every item of it is refused.) The reads of the
-- checks take no lock.
--
-- The result columns grew (held_*, then refusal and sending_domain), which CREATE OR REPLACE cannot
-- do: a database that still has an older function gets it dropped once; later migrates only
-- replace it.
DO $drop$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_proc
              WHERE proname = 'accept_messages' AND pronamespace = current_schema()::regnamespace
                AND NOT ('refusal' = ANY (coalesce(proargnames, '{}')))) THEN
    DROP FUNCTION accept_messages(jsonb);
  END IF;
END
$drop$;
CREATE OR REPLACE FUNCTION accept_messages(p_items jsonb)
RETURNS TABLE (idx integer, outcome text, refusal text, sending_domain text, held_sha256 bytea,
               held_message_id text)
LANGUAGE plpgsql
AS $$
DECLARE
  r          record;
  v_tenant   text;
  v_period   text;
  v_env      text;
  v_granted  integer := 0;  -- reserved for the current group
  v_accepted integer := 0;  -- accepted in the current group
  -- the accepted items (0-based positions) with the From and sending domain chosen for each:
  -- their messages and events are inserted together at the end, in two statements
  v_ns       integer[] := '{}';
  v_froms    text[] := '{}';
  v_domains  text[] := '{}';
BEGIN
  FOR r IN
    SELECT (e.ord - 1)::integer AS n, x.*,
           count(*) OVER (PARTITION BY x.tenant_id, x.period, x.environment_id)::integer AS group_size,
           held.environment_id IS NOT NULL AS is_held, held.request_sha256 AS held_sha,
           held.message_id AS held_msg,
           chosen.sending_domain AS chosen_domain, chosen.from_email AS chosen_from,
           chosen.refusal AS domain_refusal,
           recipient_refusal(rc.complained_at, rc.unsubscribed_at, rc.resubscribed_at,
                             rc.cooldown_until, rc.suppressed_until, rc.manual_suppressed_at, rc.manual_suppressed_until, x.category, x.now)
             AS recipient_refusal
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e (item, ord)
     CROSS JOIN LATERAL jsonb_to_record(e.item) AS x (
             id text, tenant_id text, project_id text, environment_id text, api_key_id text,
             template_id text, template_version text, category text, priority smallint,
             to_email text, from_email text, from_name text, reply_to text,
             data jsonb, expires_at timestamptz, event_id text, period text, now timestamptz,
             idempotency_key text, request_sha256 text, idempotency_expires timestamptz,
             default_domain text)
      -- 3. a live record of the key, committed before this statement began
      LEFT JOIN idempotency_keys held
        ON held.environment_id = x.environment_id AND held.key = x.idempotency_key
       AND held.expires_at > x.now
      -- 7. the sending domain, the From and the domain's verdict
     CROSS JOIN LATERAL choose_sending_domain(x.tenant_id, x.project_id, x.environment_id,
                                              x.from_email, x.default_domain) chosen
      -- 9. the recipient's state
      LEFT JOIN recipients rc ON rc.environment_id = x.environment_id AND rc.email = x.to_email
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
    refusal := NULL;
    sending_domain := NULL;
    held_sha256 := NULL;
    held_message_id := NULL;

    -- 3. idempotency replay: the caller answers with the record that holds the key
    IF r.is_held THEN
      outcome := 'idempotency_taken';
      held_sha256 := r.held_sha;
      held_message_id := r.held_msg;
      RETURN NEXT;
      CONTINUE;
    END IF;

    -- 7. sending domain and From, 9. recipient: the first refusal in that order
    IF r.domain_refusal IS NOT NULL OR r.recipient_refusal IS NOT NULL THEN
      outcome := 'refused';
      refusal := coalesce(r.domain_refusal, r.recipient_refusal);
      sending_domain := r.chosen_domain;
      RETURN NEXT;
      CONTINUE;
    END IF;

    -- 10. quota. A key claimed since this statement began (an identical request accepted by an
    -- earlier item or batch, which used the last of the quota) is a replay, not a refusal: under
    -- the counter lock no claim of this tenant's keys is in progress, so a fresh read is final.
    IF v_accepted >= v_granted THEN
      IF r.idempotency_key IS NOT NULL THEN
        SELECT k.request_sha256, k.message_id INTO held_sha256, held_message_id
          FROM idempotency_keys k
         WHERE k.environment_id = r.environment_id AND k.key = r.idempotency_key
           AND k.expires_at > r.now;
        IF FOUND THEN
          outcome := 'idempotency_taken';
          RETURN NEXT;
          CONTINUE;
        END IF;
      END IF;
      outcome := 'quota_exceeded';
      RETURN NEXT;
      CONTINUE;
    END IF;

    -- 11. accept. Claim the Idempotency-Key, or take over one whose 24 hours have passed; a live
    -- record (committed since this statement began, or written by an earlier item of this batch)
    -- is replayed.
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
        SELECT k.request_sha256, k.message_id INTO held_sha256, held_message_id
          FROM idempotency_keys k
         WHERE k.environment_id = r.environment_id AND k.key = r.idempotency_key;
        outcome := 'idempotency_taken';
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;

    v_ns := v_ns || r.n;
    v_froms := v_froms || r.chosen_from;
    v_domains := v_domains || r.chosen_domain;
    v_accepted := v_accepted + 1;
    outcome := 'accepted';
    RETURN NEXT;
  END LOOP;

  IF v_granted > v_accepted THEN
    PERFORM reserve_usage(v_tenant, v_env, v_period, v_accepted - v_granted, true);
  END IF;

  -- The messages (also the queue entries) and their accepted events, one statement each: one
  -- executor run for the batch instead of two per send.
  INSERT INTO messages (id, tenant_id, project_id, environment_id, api_key_id, template_id,
                        template_version, category, priority, to_email, from_email, from_name,
                        reply_to, sending_domain, data, next_attempt_at, expires_at, created_at,
                        updated_at, metadata, status, scheduled_at)
  SELECT x.id, x.tenant_id, x.project_id, x.environment_id, x.api_key_id, x.template_id,
         x.template_version, x.category, x.priority, x.to_email, a.from_email, x.from_name,
         x.reply_to, a.sending_domain, x.data, coalesce(x.scheduled_at, x.now), x.expires_at, x.now,
         x.now, x.metadata,
         -- a scheduled send waits out of the queue until due (claim_messages.sql)
         CASE WHEN x.scheduled_at IS NULL THEN 'queued' ELSE 'scheduled' END, x.scheduled_at
    FROM unnest(v_ns, v_froms, v_domains) AS a (n, from_email, sending_domain)
   CROSS JOIN LATERAL jsonb_to_record(p_items -> a.n) AS x (
           id text, tenant_id text, project_id text, environment_id text, api_key_id text,
           template_id text, template_version text, category text, priority smallint,
           to_email text, from_name text, reply_to text, data jsonb, expires_at timestamptz,
           now timestamptz, metadata jsonb, scheduled_at timestamptz);

  -- The metadata pairs the list's metadata filter walks (0011_message_list.sql); a send without
  -- metadata has none (jsonb_each_text of NULL is no row).
  INSERT INTO message_metadata (environment_id, key, value, message_id)
  SELECT x.environment_id, kv.key, kv.value, x.id
    FROM unnest(v_ns) AS a (n)
   CROSS JOIN LATERAL jsonb_to_record(p_items -> a.n) AS x (id text, environment_id text, metadata jsonb)
   CROSS JOIN LATERAL jsonb_each_text(x.metadata) AS kv;

  INSERT INTO message_events (id, message_id, tenant_id, type, details, created_at)
  SELECT x.event_id, x.id, x.tenant_id, 'accepted',
         CASE WHEN x.scheduled_at IS NULL THEN '{}'::jsonb
              ELSE jsonb_build_object('scheduledAt', x.scheduled_at) END, x.now
    FROM unnest(v_ns) AS a (n)
   CROSS JOIN LATERAL jsonb_to_record(p_items -> a.n) AS x (
           id text, tenant_id text, event_id text, now timestamptz, scheduled_at text);
END
$$;
