-- The console's people (DESIGN.md §14, issue 29): a tenant's members, the one-time codes they sign
-- in with, their server-side sessions, and the short-lived API keys a session's pages call /v1 with.

-- A member of a tenant's team. One live membership per (tenant, address); a removed member keeps
-- its row (the audit log names it) and may be invited again. project_ids NULL: every project.
CREATE TABLE members (
  id              text PRIMARY KEY,
  tenant_id       text NOT NULL REFERENCES tenants (id),
  email           text NOT NULL CHECK (email = lower(email)),
  name            text,
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
  project_ids     text[],
  status          text NOT NULL DEFAULT 'invited' CHECK (status IN ('invited', 'active')),
  invited_by      text NOT NULL,
  created_at      timestamptz NOT NULL,
  last_sign_in_at timestamptz,
  removed_at      timestamptz
);
CREATE UNIQUE INDEX members_tenant_email_idx ON members (tenant_id, email) WHERE removed_at IS NULL;
CREATE INDEX members_email_idx ON members (email) WHERE removed_at IS NULL;

-- A sign-in code: only its SHA-256 (salted with the row id) is kept; 10 minutes, 5 attempts, once.
-- client is the requester's rate-limit key (its address, an IPv6 /64): codes asked per address and
-- per client are counted from here, so the limits hold across replicas.
CREATE TABLE console_sign_in_codes (
  id          text PRIMARY KEY,
  email       text NOT NULL,
  code_sha256 bytea NOT NULL,
  client      text NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  attempts    integer NOT NULL DEFAULT 0,
  used_at     timestamptz
);
CREATE INDEX console_sign_in_codes_email_idx ON console_sign_in_codes (email, created_at);
CREATE INDEX console_sign_in_codes_client_idx ON console_sign_in_codes (client, created_at);

-- A signed-in person (an address whose code was right): what it may see is its live memberships,
-- read on every request. The cookie holds the token; only its SHA-256 is kept. Idle 12 h
-- (last_seen_at, written at most once a minute), absolute 7 days.
CREATE TABLE console_sessions (
  id           text PRIMARY KEY,
  token_sha256 bytea NOT NULL UNIQUE,
  email        text NOT NULL,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  revoked_at   timestamptz,
  user_agent   text,
  client       text NOT NULL
);
CREATE INDEX console_sessions_email_idx ON console_sessions (email) WHERE revoked_at IS NULL;

-- A console page's credential: an API key of one environment that lives 15 minutes and only
-- while its session does (authentication checks both, and the member's role, on every request).
ALTER TABLE api_keys ADD COLUMN session_id text REFERENCES console_sessions (id);
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
CREATE INDEX api_keys_session_idx ON api_keys (session_id) WHERE session_id IS NOT NULL;
