-- Recipients (consent and bounce state per environment and address), messages (which are also
-- the delivery queue), message events, and idempotency records for POST /v1/send.

CREATE TABLE recipients (
  environment_id      text NOT NULL REFERENCES environments (id),
  tenant_id           text NOT NULL REFERENCES tenants (id),
  email               text NOT NULL,
  unsubscribed_at     timestamptz,
  resubscribed_at     timestamptz,
  complained_at       timestamptz,
  complaint_count     integer NOT NULL DEFAULT 0,
  hard_bounce_count   integer NOT NULL DEFAULT 0,
  last_hard_bounce_at timestamptz,
  cooldown_until      timestamptz,
  suppressed_until    timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment_id, email)
);

-- The rows every send writes (messages, message_events, idempotency_keys) carry no foreign keys
-- to tenants, projects and environments: each such key made every insert look up and KEY
-- SHARE-lock the one tenant, project and environment row that all of a tenant's sends share
-- (multixacts under concurrent accepts; accepts/s +16% without them, bench/accept.ts). Those
-- parents are soft-deleted and never removed, and the accept path writes the ids of the
-- authenticated key's own scope. message_events keeps its key to messages.
CREATE TABLE messages (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL,
  project_id       text NOT NULL,
  environment_id   text NOT NULL,
  api_key_id       text,
  template_id      text NOT NULL,
  template_version text NOT NULL,
  category         text NOT NULL CHECK (category IN ('security', 'transactional', 'notification')),
  priority         smallint NOT NULL,
  to_email         text NOT NULL,
  from_email       text NOT NULL,
  from_name        text,
  reply_to         text,
  sending_domain   text NOT NULL,
  data             jsonb,
  status           text NOT NULL DEFAULT 'queued' CHECK (status IN
                     ('queued', 'sending', 'deferred', 'sent', 'delivered', 'bounced', 'failed',
                      'suppressed', 'expired', 'complained')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  locked_until     timestamptz,
  expires_at       timestamptz NOT NULL,
  last_error       jsonb,
  bulk_job_id      text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  sent_at          timestamptz,
  delivered_at     timestamptz
);
CREATE INDEX messages_queue_idx ON messages (priority, next_attempt_at) WHERE status IN ('queued', 'deferred');
CREATE INDEX messages_lease_idx ON messages (locked_until) WHERE status = 'sending';
CREATE INDEX messages_recipient_idx ON messages (environment_id, to_email, created_at DESC);

CREATE TABLE message_events (
  id         text PRIMARY KEY,
  message_id text NOT NULL REFERENCES messages (id),
  tenant_id  text NOT NULL,
  type       text NOT NULL,
  details    jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL
);
CREATE INDEX message_events_message_idx ON message_events (message_id, created_at);

-- Scope: the API key's environment. A record is live until expires_at (24 h).
CREATE TABLE idempotency_keys (
  environment_id text NOT NULL,
  key            text NOT NULL,
  request_sha256 bytea NOT NULL,
  message_id     text NOT NULL,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL,
  PRIMARY KEY (environment_id, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);
