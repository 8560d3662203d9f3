-- Contacts, groups and bulk sends (DESIGN.md §7). Contacts and groups are tenant-level; a
-- contact's consent and bounce state stays in `recipients`, per environment, joined by address.

CREATE TABLE contacts (
  id            text PRIMARY KEY,                       -- ct_<ulid>: time-ordered, the list's cursor
  tenant_id     text NOT NULL REFERENCES tenants (id),
  email         text NOT NULL,                          -- normalised (lowercase, punycode)
  name          text,
  custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  UNIQUE (tenant_id, email)
);
-- Pages of one tenant in id order (cursor pagination).
CREATE UNIQUE INDEX contacts_tenant_page_idx ON contacts (tenant_id, id);

-- The slug is the group's identity (stable in v1); memberships cascade when a group is deleted,
-- contacts never do.
CREATE TABLE contact_groups (
  tenant_id  text NOT NULL REFERENCES tenants (id),
  slug       text NOT NULL,
  name       text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, slug)
);

CREATE TABLE contact_group_members (
  tenant_id  text NOT NULL,
  group_slug text NOT NULL,
  contact_id text NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, group_slug, contact_id),
  FOREIGN KEY (tenant_id, group_slug) REFERENCES contact_groups (tenant_id, slug) ON DELETE CASCADE
);
CREATE INDEX contact_group_members_contact_idx ON contact_group_members (contact_id);

-- A bulk send. Its messages carry bulk_job_id and contact_id; their template data is the job's
-- (messages.data stays NULL), filled per contact at render time.
CREATE TABLE bulk_jobs (
  id                 text PRIMARY KEY,                  -- job_<ulid>
  tenant_id          text NOT NULL,
  project_id         text NOT NULL,
  environment_id     text NOT NULL,
  api_key_id         text,
  template_id        text NOT NULL,
  template_version   text NOT NULL,
  category           text NOT NULL,
  template_data      jsonb,                             -- dropped when the job ends
  target             jsonb NOT NULL,                    -- {groupSlug?, contactCount}
  status             text NOT NULL DEFAULT 'running'
                       CHECK (status IN ('running', 'paused_bounce_rate', 'canceled')),
  queued             integer NOT NULL,
  skipped            jsonb NOT NULL,                    -- {reason: count}
  -- The reputation guard's window: attempts and hard bounces since creation or the last resume.
  guard_attempts     integer NOT NULL DEFAULT 0,
  guard_hard_bounces integer NOT NULL DEFAULT 0,
  paused_at          timestamptz,
  canceled_at        timestamptz,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX bulk_jobs_environment_idx ON bulk_jobs (environment_id, created_at DESC);

ALTER TABLE messages ADD COLUMN contact_id text;
ALTER TABLE messages DROP CONSTRAINT messages_status_check;
ALTER TABLE messages ADD CONSTRAINT messages_status_check CHECK (status IN
  ('queued', 'sending', 'deferred', 'sent', 'delivered', 'bounced', 'failed', 'suppressed',
   'expired', 'complained', 'canceled'));
CREATE INDEX messages_bulk_job_idx ON messages (bulk_job_id, status) WHERE bulk_job_id IS NOT NULL;

-- An Idempotency-Key of POST /v1/contacts/send holds a job instead of a message.
ALTER TABLE idempotency_keys ALTER COLUMN message_id DROP NOT NULL;
ALTER TABLE idempotency_keys ADD COLUMN bulk_job_id text;
