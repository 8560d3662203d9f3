-- Tenancy, API keys, sending domains, usage counters and audit events.
-- Written for PostgreSQL 14+ (PGlite is 18 and accepts more; do not rely on it).

CREATE TABLE plans (
  id              text PRIMARY KEY,
  monthly_limit   integer NOT NULL CHECK (monthly_limit >= 0),
  overage_allowed boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tenants (
  id            text PRIMARY KEY,
  name          text NOT NULL,
  plan_id       text NOT NULL REFERENCES plans (id),
  access_status text NOT NULL DEFAULT 'active' CHECK (access_status IN ('active', 'trialing', 'suspended')),
  trial_ends_at timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at    timestamptz
);

CREATE TABLE projects (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL REFERENCES tenants (id),
  name          text NOT NULL,
  display_name  text,
  support_email text,
  status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  from_email    text,
  from_name     text,
  reply_to      text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at    timestamptz
);
CREATE INDEX projects_tenant_idx ON projects (tenant_id);

CREATE TABLE environments (
  id             text PRIMARY KEY,
  tenant_id      text NOT NULL REFERENCES tenants (id),
  project_id     text NOT NULL REFERENCES projects (id),
  name           text NOT NULL,
  status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  sending_status text NOT NULL DEFAULT 'active' CHECK (sending_status IN ('active', 'paused', 'blocked')),
  from_email     text,
  from_name      text,
  reply_to       text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at     timestamptz
);
CREATE INDEX environments_project_idx ON environments (project_id);

-- The full key is msk_<ulid>_<secret>; only the SHA-256 of the secret is kept.
CREATE TABLE api_keys (
  id             text PRIMARY KEY,
  tenant_id      text NOT NULL REFERENCES tenants (id),
  environment_id text NOT NULL REFERENCES environments (id),
  secret_sha256  bytea NOT NULL,
  hint           text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz
);
CREATE INDEX api_keys_environment_idx ON api_keys (environment_id);

CREATE TABLE sending_domains (
  id             text PRIMARY KEY,
  domain         text NOT NULL UNIQUE,
  tenant_id      text NOT NULL REFERENCES tenants (id),
  project_id     text REFERENCES projects (id),
  environment_id text REFERENCES environments (id),
  scope          text NOT NULL CHECK (scope IN ('tenant', 'project', 'environment')),
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'failed')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((scope = 'tenant' AND project_id IS NULL AND environment_id IS NULL)
      OR (scope = 'project' AND project_id IS NOT NULL AND environment_id IS NULL)
      OR (scope = 'environment' AND environment_id IS NOT NULL))
);
CREATE INDEX sending_domains_tenant_idx ON sending_domains (tenant_id);

-- Accepted messages per calendar month (UTC), period = 'YYYY-MM'.
CREATE TABLE tenant_usage (
  tenant_id text NOT NULL REFERENCES tenants (id),
  period    text NOT NULL,
  sent      integer NOT NULL DEFAULT 0 CHECK (sent >= 0),
  PRIMARY KEY (tenant_id, period)
);

CREATE TABLE environment_usage (
  environment_id text NOT NULL REFERENCES environments (id),
  tenant_id      text NOT NULL REFERENCES tenants (id),
  period         text NOT NULL,
  sent           integer NOT NULL DEFAULT 0 CHECK (sent >= 0),
  PRIMARY KEY (environment_id, period)
);

CREATE TABLE audit_events (
  id          text PRIMARY KEY,
  tenant_id   text REFERENCES tenants (id),
  actor       text NOT NULL,
  action      text NOT NULL,
  target_type text NOT NULL,
  target_id   text NOT NULL,
  details     jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_tenant_idx ON audit_events (tenant_id, created_at);
