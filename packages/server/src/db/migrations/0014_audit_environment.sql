-- POST /v1/audit/list (DESIGN.md §12): an environment's audit events. Events about an environment,
-- a recipient of one, one of its keys or one of its bulk sends carry it; a tenant's own events
-- (plans, projects, domains, groups) carry none and are the operator's to read.
ALTER TABLE audit_events ADD COLUMN environment_id text;
UPDATE audit_events SET environment_id = target_id WHERE target_type = 'environment';
UPDATE audit_events SET environment_id = split_part(target_id, ':', 1)
 WHERE target_type = 'recipient' AND target_id LIKE 'env\_%:%';
UPDATE audit_events a SET environment_id = k.environment_id
  FROM api_keys k WHERE a.target_type = 'api_key' AND k.id = a.target_id;
UPDATE audit_events a SET environment_id = j.environment_id
  FROM bulk_jobs j WHERE a.target_type = 'bulk_job' AND j.id = a.target_id;
CREATE INDEX audit_events_environment_idx ON audit_events (environment_id, id) WHERE environment_id IS NOT NULL;
