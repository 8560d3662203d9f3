-- The delivery worker's claim step (db/repositories/queue.ts claimMessages): messages whose lease
-- ran out (their worker died) first, oldest lease first, then due queued/deferred messages (with
-- scheduled ones that fell due) in priority order; marked `sending` under a new lease and claim token, returned with what the
-- attempt needs (project, environment, brand, the recipient's refusal now — recipient_refusal(),
-- the eligibility rule's one home — and a bulk message's contact).
-- A crashed worker's messages were claimed before everything due since: they must not wait
-- behind a backlog (a login code would expire).
--
-- A bulk message is claimed only while its job runs. A paused job's waiting messages are parked
-- out of the due range (bulk.ts), so this only skips the few that were in flight when their job
-- was paused or canceled (a deferral, a lost lease); the retention sweep settles those.
--
-- A plpgsql function so its plan is kept per connection: the worker claims hundreds of batches a
-- second, and planning this statement cost about as much as running it (bench/RESULTS.md).
-- Its columns changed (priority, then recipient_refusal): a new column list needs the old
-- function dropped first.
DROP FUNCTION IF EXISTS claim_messages(timestamptz, integer, timestamptz, text);
CREATE FUNCTION claim_messages(
  p_now timestamptz, p_limit integer, p_locked_until timestamptz, p_claim_token text)
RETURNS TABLE (
  id text, tenant_id text, project_id text, environment_id text, template_id text,
  template_version text, category text, priority smallint, to_email text, from_email text, from_name text,
  reply_to text, sending_domain text, data jsonb, contact json, attempts integer,
  expires_at timestamptz, claim_token text, project_name text, support_email text,
  environment_name text, tenant_name text, brand_color text, logo_url text, postal_address text,
  recipient_refusal text)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
  -- Scheduled sends that fell due join the queue first (0015_scheduled_sends.sql), to be claimed
  -- by the statement below in priority order like any queued message. One probe of an index that
  -- is empty most of the time; a message POST /v1/messages/cancel or /reschedule holds is skipped.
  UPDATE messages s SET status = 'queued', updated_at = p_now
   WHERE s.id IN (SELECT d.id FROM messages d
                   WHERE d.status = 'scheduled' AND d.next_attempt_at <= p_now
                   ORDER BY d.next_attempt_at
                   LIMIT 1000
                   FOR UPDATE SKIP LOCKED);

  RETURN QUERY
  WITH stale AS (
    SELECT s.id FROM messages s
    WHERE s.status = 'sending' AND s.locked_until < p_now
      AND (s.bulk_job_id IS NULL OR EXISTS (
        SELECT 1 FROM bulk_jobs j WHERE j.id = s.bulk_job_id AND j.status = 'running'))
    ORDER BY s.locked_until
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), due AS (
    SELECT d.id FROM messages d
    WHERE d.status IN ('queued', 'deferred') AND d.next_attempt_at <= p_now
      AND (d.bulk_job_id IS NULL OR EXISTS (
        SELECT 1 FROM bulk_jobs j WHERE j.id = d.bulk_job_id AND j.status = 'running'))
    ORDER BY d.priority, d.next_attempt_at
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  )
  UPDATE messages m
  SET status = 'sending', locked_until = p_locked_until, claim_token = p_claim_token, updated_at = p_now
  FROM projects p, environments e
  WHERE m.id IN (SELECT c.id FROM (SELECT id FROM stale UNION ALL SELECT id FROM due) c LIMIT p_limit)
    AND p.id = m.project_id AND e.id = m.environment_id
  RETURNING m.id, m.tenant_id, m.project_id, m.environment_id, m.template_id, m.template_version,
    m.category, m.priority, m.to_email, m.from_email, m.from_name, m.reply_to, m.sending_domain,
    -- A bulk message's data is its job's (kept once per job, not per message).
    CASE WHEN m.bulk_job_id IS NULL THEN m.data
         ELSE (SELECT j.template_data FROM bulk_jobs j WHERE j.id = m.bulk_job_id) END,
    -- Its contact as it is now (a contact gone since renders with empty values).
    CASE WHEN m.contact_id IS NULL THEN NULL
         ELSE json_build_object(
           'email', m.to_email,
           'name', (SELECT c.name FROM contacts c WHERE c.id = m.contact_id),
           'customFields', COALESCE((SELECT c.custom_fields FROM contacts c WHERE c.id = m.contact_id),
                                    '{}'::jsonb)) END,
    m.attempts, m.expires_at, m.claim_token,
    COALESCE(p.display_name, p.name), p.support_email, e.name,
    (SELECT t.name FROM tenants t WHERE t.id = m.tenant_id),
    p.brand_color, p.logo_url, p.postal_address,
    (SELECT recipient_refusal(r.complained_at, r.unsubscribed_at, r.resubscribed_at,
                              r.cooldown_until, r.suppressed_until, r.manual_suppressed_at, r.manual_suppressed_until, m.category, p_now)
      FROM recipients r WHERE r.environment_id = m.environment_id AND r.email = m.to_email);
END
$$;
