// Row types for Kysely, one interface per table of migrations/*.sql: generated into
// generated/schema.ts by scripts/generate-db-schema.ts (`npm run generate:db -w @mailsvc/server`,
// also run by `npm run docs`) and re-exported here, so no import of this file changes.
// This file holds only what no table defines.
export * from './generated/schema.js';

import type { ProjectsTable } from './generated/schema.js';

/** A value of a contact's custom fields (contacts.custom_fields). */
export type CustomFieldValue = string | number | boolean;

/** The sender columns projects and environments share. */
export type SenderSettings = Pick<ProjectsTable, 'from_email' | 'from_name' | 'reply_to'>;
