-- Feedback after delivery (DESIGN.md §5): the raw reports status changes came from, and what the
-- relay intakes need (signing secrets, seen webhook ids, SES topics).

-- The report a message's delivered/bounced/failed/complained event came from, gzip-compressed,
-- kept as evidence; retention deletes it with its message.
CREATE TABLE feedback_reports (
  id          text PRIMARY KEY,
  message_id  text NOT NULL REFERENCES messages (id),
  tenant_id   text NOT NULL,
  source      text NOT NULL CHECK (source IN ('inbound', 'intake', 'ses')),
  report_type text NOT NULL,
  raw_gzip    bytea NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX feedback_reports_message_idx ON feedback_reports (message_id);

-- Standard Webhooks secrets of POST /v1/events/intake, per environment. A rotation keeps the
-- previous secret valid until its expires_at.
CREATE TABLE event_intake_secrets (
  id             text PRIMARY KEY,
  environment_id text NOT NULL REFERENCES environments (id),
  tenant_id      text NOT NULL REFERENCES tenants (id),
  secret         text NOT NULL,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz
);
CREATE INDEX event_intake_secrets_environment_idx ON event_intake_secrets (environment_id);

-- Webhook ids (and SNS message ids) seen within the replay window: a replay is ignored.
CREATE TABLE event_intake_seen (
  environment_id text NOT NULL,
  event_id       text NOT NULL,
  expires_at     timestamptz NOT NULL,
  PRIMARY KEY (environment_id, event_id)
);

-- The SNS topics an environment's SES notifications arrive from: an SNS signature proves only
-- that Amazon sent a message, so the topic decides whose it is.
CREATE TABLE ses_topics (
  topic_arn      text PRIMARY KEY,
  environment_id text NOT NULL REFERENCES environments (id),
  tenant_id      text NOT NULL REFERENCES tenants (id),
  created_at     timestamptz NOT NULL
);

-- The return path of a custom sending domain: its mail's envelope sender moves to
-- bounces.<domain> only once an operator says its MX (to mailsvc inbound) and SPF are published.
-- Until then MAILSVC_BOUNCE_DOMAIN: a MAIL FROM domain without MX or A is refused by receivers.
ALTER TABLE sending_domains ADD COLUMN return_path_status text NOT NULL DEFAULT 'pending'
  CHECK (return_path_status IN ('pending', 'verified'));
