-- What POST /v1/contacts/list and the contact record need beyond 0007 (bench/contacts-list.ts,
-- bench/RESULTS.md "Contacts list": a page of a 100,000-contact tenant in milliseconds).

-- A contact's lastEmailedAt and the project/environment/lastEmailedAt filters go through the
-- tenant's environments to messages (environment_id, to_email, created_at DESC).
CREATE INDEX environments_tenant_idx ON environments (tenant_id);

-- search: a case-insensitive substring of email or name (ILIKE '%…%'). A btree cannot serve a
-- leading wildcard; trigram indexes can (three characters or more), so a rare match is a few
-- index pages instead of every contact of the tenant (115–142 ms → see RESULTS.md). pg_trgm is a
-- trusted extension (PostgreSQL 13+: a database owner may create it) shipped with PostgreSQL's
-- contrib modules, and with PGlite (loaded in db/connection.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX contacts_email_trgm_idx ON contacts USING gin (email gin_trgm_ops);
CREATE INDEX contacts_name_trgm_idx ON contacts USING gin (name gin_trgm_ops);
