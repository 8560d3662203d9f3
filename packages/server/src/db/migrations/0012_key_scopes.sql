-- Scoped API keys (DESIGN.md §12): a key is `full` (every operation; every key made before this
-- migration) or `send` (POST /v1/send, the batch, GET /v1/quota), a send key optionally limited to
-- template categories; a name; and when it was last used (written at most once a minute per key
-- and process, never by the accept itself).
ALTER TABLE api_keys ADD COLUMN scope text NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'send'));
ALTER TABLE api_keys ADD COLUMN template_categories text[]
  CHECK (template_categories IS NULL OR (scope = 'send' AND cardinality(template_categories) > 0
         AND template_categories <@ ARRAY['security', 'transactional', 'notification']));
ALTER TABLE api_keys ADD COLUMN name text;
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
