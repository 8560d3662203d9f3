-- The rows every send writes (messages, message_events, idempotency_keys) no longer carry foreign
-- keys to tenants, projects and environments. Each such key made every insert look up and
-- KEY SHARE-lock the one tenant, project and environment row that all of a tenant's sends share;
-- with sends accepted in several concurrent transactions those locks become multixacts. Those
-- parents are soft-deleted (deleted_at) and never removed, so the keys protected nothing the
-- application does. The accept path writes their ids from the authenticated key's own scope.
-- message_events keeps its key to messages (written in the same transaction).
ALTER TABLE messages DROP CONSTRAINT messages_tenant_id_fkey;
ALTER TABLE messages DROP CONSTRAINT messages_project_id_fkey;
ALTER TABLE messages DROP CONSTRAINT messages_environment_id_fkey;
ALTER TABLE message_events DROP CONSTRAINT message_events_tenant_id_fkey;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_environment_id_fkey;
