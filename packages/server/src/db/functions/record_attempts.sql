-- The delivery worker's record step (db/repositories/queue.ts recordAttempts): many attempt outcomes
-- in one statement. Each message gets its new status (template data dropped at a final status)
-- and its event, only where the claim token still matches: a worker whose lease was lost cannot
-- overwrite its successor. A report (a relay's delivery event, a fast DSN) may have moved the
-- message on while the attempt ran: then the report's status, error and timeline stand, and the
-- attempt only releases its claim and counts (applied = false).
-- A plpgsql function so its plan is kept per connection: the worker records hundreds of batches a
-- second, and planning this statement cost as much as running it (bench/RESULTS.md, delivery).
--
-- p_items: a JSON array of {message_id, claim_token, status, attempted (0|1), next_attempt_at,
-- error, is_final, event_id, event_type (NULL: the new status), event_details, now}. Returns one
-- row per recorded message.
CREATE OR REPLACE FUNCTION record_attempts(p_items jsonb)
RETURNS TABLE (message_id text, applied boolean, bulk_job_id text)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH input AS (
    SELECT * FROM jsonb_to_recordset(p_items) AS x(
      message_id text, claim_token text, status text, attempted int, next_attempt_at timestamptz,
      error jsonb, is_final boolean, event_id text, event_type text, event_details jsonb,
      now timestamptz)
  ), prior AS (
    -- Each message's status before this statement (RETURNING sees the new one): the outcome
    -- applies only to a message still 'sending'.
    SELECT m.id, m.status FROM messages m JOIN input i ON i.message_id = m.id
    WHERE m.claim_token = i.claim_token
    FOR UPDATE OF m
  ), updated AS (
    UPDATE messages m SET
      status = CASE WHEN m.status = 'sending' THEN i.status ELSE m.status END,
      attempts = m.attempts + i.attempted,
      next_attempt_at = COALESCE(i.next_attempt_at, m.next_attempt_at),
      locked_until = NULL,
      claim_token = NULL,
      last_error = CASE WHEN m.status = 'sending' THEN i.error ELSE m.last_error END,
      sent_at = CASE WHEN i.status = 'sent' THEN i.now ELSE m.sent_at END,
      data = CASE WHEN i.is_final OR m.status <> 'sending' THEN NULL ELSE m.data END,
      updated_at = i.now
    FROM input i, prior p
    WHERE m.id = i.message_id AND m.claim_token = i.claim_token AND p.id = m.id
    RETURNING m.id, m.tenant_id, m.bulk_job_id, p.status = 'sending' AS applied
  ), events AS (
    INSERT INTO message_events (id, message_id, tenant_id, type, details, created_at)
    SELECT i.event_id, u.id, u.tenant_id, coalesce(i.event_type, i.status), i.event_details, i.now
    FROM updated u JOIN input i ON i.message_id = u.id
    WHERE u.applied
  )
  SELECT u.id, u.applied, u.bulk_job_id FROM updated u;
END
$$;
