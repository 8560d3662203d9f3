-- A message's webhook events, for its attempts (POST /v1/webhooks/deliveries/list {messageId}: the
-- console's message page). Events without a message (recipients', domains', tests) are not indexed.
CREATE INDEX IF NOT EXISTS webhook_events_message_idx ON webhook_events (message_id) WHERE message_id IS NOT NULL;
