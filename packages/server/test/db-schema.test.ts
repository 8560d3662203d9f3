// src/db/generated/schema.ts is what the migrations make today: a new or changed migration fails
// here until `npm run generate:db -w @mailsvc/server` is run (`npm run docs` runs it too).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, generateDbSchema } from '../scripts/generate-db-schema.js';
import { listMigrations } from '../src/db/migrate.js';

describe('generated database schema', () => {
  it('matches the generator’s output for the migrations of today', async () => {
    const actual = fs.readFileSync(GENERATED_FILE, 'utf8');
    expect(actual, 'src/db/generated/schema.ts is stale: run npm run generate:db -w @mailsvc/server').toBe(
      await generateDbSchema(),
    );
  });

  it('follows a migration: a new column, its NULL, its default and its CHECK list', async () => {
    const scratch = {
      version: 9999,
      name: 'scratch',
      sql: `ALTER TABLE plans ADD COLUMN note text;
            ALTER TABLE plans ADD COLUMN tier text NOT NULL DEFAULT 'free' CHECK (tier IN ('free', 'paid'));`,
    };
    const text = await generateDbSchema([...listMigrations(), scratch]);
    expect(text).toContain("  note: Nullable<string>;\n  tier: Generated<'free' | 'paid'>;\n}");
  });
});
