-- The app's own view of its messages (DESIGN.md §12): the metadata of sends, and the indexes of
-- POST /v1/messages/list, each of which walks one index range newest first and stops after a page.
--
-- On a large messages table each CREATE INDEX below holds off writes to it while it builds (a
-- migration runs in one transaction). To avoid that, create them beforehand with CREATE INDEX
-- CONCURRENTLY and these names (docs/operations.md): IF NOT EXISTS then skips them. The columns
-- are added last: ALTER TABLE locks out reads too, until the migration commits, so it comes after
-- the builds and holds its lock for an instant.

-- One row per metadata pair of a message, so the list's metadata filter walks one pair's messages
-- newest first (a GIN index on messages.metadata finds them unordered: a pair shared by many
-- messages would be read whole and sorted for every page). Written with the message, deleted
-- with it by retention (through this key, from the message's metadata).
CREATE TABLE message_metadata (
  environment_id text NOT NULL,
  key            text NOT NULL,
  value          text NOT NULL,
  message_id     text NOT NULL,
  PRIMARY KEY (environment_id, key, value, message_id)
);

-- The unfiltered list and the createdAfter/createdBefore filters (message ids are ULIDs whose
-- time is created_at, so a time range is an id range).
CREATE INDEX IF NOT EXISTS messages_list_idx ON messages (environment_id, id);
-- The status filter (several statuses: one walk per status, merged).
CREATE INDEX IF NOT EXISTS messages_list_status_idx ON messages (environment_id, status, id);
-- The templateId filter.
CREATE INDEX IF NOT EXISTS messages_list_template_idx ON messages (environment_id, template_id, id);
-- The bulkJobId filter (messages_bulk_job_idx is by status, for a job's counts).
CREATE INDEX IF NOT EXISTS messages_list_bulk_job_idx ON messages (bulk_job_id, id) WHERE bulk_job_id IS NOT NULL;
-- The to filter uses messages_recipient_idx (environment_id, to_email, created_at DESC).

-- The send's metadata, as given (NULL: none). Kept until retention deletes the message.
ALTER TABLE messages ADD COLUMN metadata jsonb;
-- A bulk send's metadata, given to each of its messages.
ALTER TABLE bulk_jobs ADD COLUMN metadata jsonb;
