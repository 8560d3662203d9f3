-- The webhook outbox (DESIGN.md §11): an event is written by the same transaction as the state
-- change that causes it, so a process that dies after the change cannot lose the event and one
-- that dies before it cannot send one that did not happen. A recipient's, a bulk send's, a domain's
-- or a test event is written with its deliveries at once (queue_webhook_events()); a message's
-- timeline event, written by the worker's record hundreds of times a second, is only noted there
-- (webhook_fanout) and becomes a webhook event with its deliveries at the webhook runner's next
-- claim (fan_out_webhook_events()). Rows are written only while an enabled endpoint takes the
-- event: a tenant without webhooks pays one probe of a small table per statement.

-- The webhook type of a message timeline event (MESSAGE_EVENT_TYPES); NULL: not sent as a webhook
-- (accepted, rescheduled, error).
CREATE OR REPLACE FUNCTION webhook_event_type(p_message_event text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT
AS $$
  SELECT CASE p_message_event
    WHEN 'sent' THEN 'message.sent'
    WHEN 'deferred' THEN 'message.delivery_delayed'
    WHEN 'delivered' THEN 'message.delivered'
    WHEN 'bounced' THEN 'message.bounced'
    WHEN 'failed' THEN 'message.failed'
    WHEN 'expired' THEN 'message.expired'
    WHEN 'suppressed' THEN 'message.suppressed'
    WHEN 'complained' THEN 'message.complained'
    WHEN 'canceled' THEN 'message.canceled'
  END
$$;

-- Queues events for the endpoints that take them: the event rows that an enabled endpoint of
-- their environment takes, and one delivery per such endpoint. A test event names its one
-- endpoint. Returns the number of deliveries.
CREATE OR REPLACE FUNCTION queue_webhook_event_rows(p_events webhook_event_input[], p_endpoint_id text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
  n integer;
BEGIN
  WITH subs AS MATERIALIZED (
    SELECT ev.*, w.id AS endpoint_id FROM unnest(p_events) ev
      JOIN webhook_endpoints w ON w.environment_id = ev.environment_id
     -- an endpoint takes the events that occurred once it was there and while it was enabled (a
     -- disabled endpoint's deliveries wait for it to be enabled again)
     WHERE CASE WHEN p_endpoint_id IS NULL
                THEN (w.enabled OR w.disabled_at > ev.created_at)
                     AND (w.event_types IS NULL OR ev.type = ANY (w.event_types))
                     AND w.created_at <= ev.created_at
                ELSE w.id = p_endpoint_id END
  ), events AS (
    INSERT INTO webhook_events (id, tenant_id, environment_id, type, message_id, data, created_at)
    SELECT DISTINCT ON (id) id, tenant_id, environment_id, type, message_id, data, created_at FROM subs
    ON CONFLICT (id) DO NOTHING
  )
  INSERT INTO webhook_deliveries (event_id, endpoint_id, environment_id, order_key, event_type,
                                  occurred_at, next_attempt_at, created_at, updated_at)
  SELECT id, endpoint_id, environment_id,
         -- one subject's events go in order: a message's, a recipient's, a bulk send's
         COALESCE(message_id,
                  CASE WHEN type LIKE 'recipient.%' THEN 'rcpt:' || (data ->> 'email') END,
                  data ->> 'bulkJobId'),
         type, created_at, created_at, created_at, created_at
    FROM subs;
  -- No NOTIFY: it would serialise the commits of the transactions that write events. The webhook
  -- runner polls (MAILSVC_WEBHOOK_POLL_MS), and claims again as each of its deliveries ends.
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;

-- The same from the application (db/repositories/webhook-queue.ts): p_events is a JSON array of
-- rows of (id, tenant_id, environment_id, type, message_id, data, created_at).
CREATE OR REPLACE FUNCTION queue_webhook_events(p_events jsonb, p_endpoint_id text DEFAULT NULL)
RETURNS integer
LANGUAGE sql
AS $$
  SELECT queue_webhook_event_rows(
    ARRAY(SELECT x FROM jsonb_populate_recordset(NULL::webhook_event_input, p_events) x), p_endpoint_id)
$$;

-- Every message timeline event of a statement (the worker's outcomes, reports, cancels, a bulk
-- send's skips) that an endpoint may take is noted in webhook_fanout by the same statement's
-- transaction, so a process that dies after the change cannot lose the event; the webhook runner's
-- claim makes it a webhook event (fan_out_webhook_events()). Statement-level with the new rows as a
-- table: one probe per statement, not per row; only the tenant is checked here (the endpoints'
-- environments and event types at the fan-out).
CREATE OR REPLACE FUNCTION webhook_outbox_message_events() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_fanout (message_event_id)
  SELECT n.id FROM new_events n
   WHERE webhook_event_type(n.type) IS NOT NULL
     AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.tenant_id = n.tenant_id AND w.enabled);
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER message_events_webhook_outbox
  AFTER INSERT ON message_events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_outbox_message_events();

-- The oldest p_limit noted message events become webhook events with their deliveries, their
-- payload data read from the message and its event (what it carries does not change after the
-- send). Called by the webhook runner's claim under its lock (claim_webhook_deliveries()), so one
-- fan-out runs at a time. Returns the number of notes taken (p_limit: there may be more).
CREATE OR REPLACE FUNCTION fan_out_webhook_events(p_limit integer)
RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
  v_taken integer;
  v_queued integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_fanout) THEN
    RETURN 0;
  END IF;
  WITH taken AS (
    DELETE FROM webhook_fanout f
     WHERE f.message_event_id IN (
       SELECT o.message_event_id FROM webhook_fanout o ORDER BY o.message_event_id LIMIT p_limit)
    RETURNING f.message_event_id
  )
  SELECT count(*), queue_webhook_event_rows(array_agg(ROW(
      n.id, m.tenant_id, m.environment_id, webhook_event_type(n.type), m.id,
      jsonb_build_object(
        'messageId', m.id, 'templateId', m.template_id, 'templateVersion', m.template_version,
        'to', m.to_email, 'metadata', COALESCE(m.metadata, '{}'::jsonb),
        'bulkJobId', m.bulk_job_id, 'timelineType', n.type, 'details', n.details,
        'occurredAt', n.created_at),
      n.created_at)::webhook_event_input ORDER BY n.id) FILTER (WHERE m.id IS NOT NULL))
    INTO v_taken, v_queued
    -- a note whose event is gone (its message deleted by the retention sweep) is only removed
    FROM taken t LEFT JOIN message_events n ON n.id = t.message_event_id LEFT JOIN messages m ON m.id = n.message_id;
  RETURN v_taken;
END
$$;
