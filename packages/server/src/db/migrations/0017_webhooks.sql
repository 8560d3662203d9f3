-- Outbound webhooks (DESIGN.md §11). An environment's endpoints; the events sent to them, written
-- by the transaction of the state change that causes each (a transactional outbox: the trigger on
-- message_events and emit_webhook_event() in db/functions/webhook_outbox.sql), only while some
-- endpoint of the environment takes the type; one delivery per event and endpoint, the queue the
-- webhook runner claims (claim_webhook_deliveries()); and every attempt, kept 30 days.

CREATE TABLE webhook_endpoints (
  id                    text PRIMARY KEY,
  tenant_id             text NOT NULL,
  environment_id        text NOT NULL,
  url                   text NOT NULL,
  description           text,
  -- NULL: every event type
  event_types           text[],
  enabled               boolean NOT NULL DEFAULT true,
  -- manual (the app), gone (a 410), failing (5 days of failed deliveries); NULL while enabled
  disabled_reason       text,
  -- The signing secret (whsec_…): kept as is, since every delivery is signed with it. After a
  -- rotation the previous one also signs until previous_secret_until.
  secret                text NOT NULL,
  previous_secret       text,
  previous_secret_until timestamptz,
  -- The first failed attempt since the last successful one: 5 days of that disables the endpoint.
  failing_since         timestamptz,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  CONSTRAINT webhook_endpoints_disabled_reason_check
    CHECK (disabled_reason IS NULL OR disabled_reason IN ('manual', 'gone', 'failing'))
);
CREATE INDEX webhook_endpoints_environment_idx ON webhook_endpoints (environment_id, created_at);

CREATE TABLE webhook_events (
  -- evt_…: a message event's own id, so webhook-id names the event the timeline shows
  id             text PRIMARY KEY,
  tenant_id      text NOT NULL,
  environment_id text NOT NULL,
  type           text NOT NULL,
  -- events of one message reach an endpoint in order (claim_webhook_deliveries())
  message_id     text,
  -- what the payload is built from (webhooks/payload.ts), as stored when the event occurred
  data           jsonb NOT NULL,
  created_at     timestamptz NOT NULL
);
CREATE INDEX webhook_events_environment_idx ON webhook_events (environment_id, created_at);

CREATE TABLE webhook_deliveries (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id        text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  environment_id  text NOT NULL,
  -- what the event is about (a message, a recipient, a bulk send): one subject's events reach an
  -- endpoint in order
  order_key       text,
  event_type      text NOT NULL,
  -- the event's time: the order of a subject's deliveries to one endpoint
  occurred_at     timestamptz NOT NULL,
  -- pending (due at next_attempt_at), sending (claimed, under a lease), succeeded, failed
  status          text NOT NULL DEFAULT 'pending',
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  locked_until    timestamptz,
  claim_token     text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  CONSTRAINT webhook_deliveries_status_check
    CHECK (status IN ('pending', 'sending', 'succeeded', 'failed'))
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_lease_idx ON webhook_deliveries (locked_until) WHERE status = 'sending';
-- the claim's ordering check: an earlier open delivery of the same subject to the same endpoint
CREATE INDEX webhook_deliveries_open_idx ON webhook_deliveries (endpoint_id, order_key, occurred_at)
  WHERE status IN ('pending', 'sending');
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

CREATE TABLE webhook_attempts (
  id              text PRIMARY KEY,
  delivery_id     bigint NOT NULL,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  environment_id  text NOT NULL,
  event_id        text NOT NULL,
  event_type      text NOT NULL,
  attempt         integer NOT NULL,
  outcome         text NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
  status_code     integer,
  response_body   text NOT NULL,
  latency_ms      integer NOT NULL,
  error           text,
  next_attempt_at timestamptz,
  created_at      timestamptz NOT NULL
);
-- POST /v1/webhooks/deliveries/list: newest first, in the environment or one endpoint
CREATE INDEX webhook_attempts_environment_idx ON webhook_attempts (environment_id, id);
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, id);

-- When a bulk send's last message ended (its bulk_send.completed event was written with it).
ALTER TABLE bulk_jobs ADD COLUMN IF NOT EXISTS completed_at timestamptz;
