// The client's generated sources are what the contract and the template catalogue say today: a
// changed operation or template fails here until `npm run generate -w @mailsvc/client` is run.
import fs from 'node:fs';
import path from 'node:path';
import { operations as contractOperations } from '@mailsvc/contract/api';
import { listTemplates } from '@mailsvc/templates';
import { describe, expect, it } from 'vitest';
import { GENERATED_DIR, generateAll } from '../scripts/generate.js';
import { operations } from '../src/generated/core.js';
import { wrapperRoutePaths } from '../src/generated/wrapper.js';
import { Mailsvc, MailsvcWrapper } from '../src/index.js';

describe('generated sources', () => {
  it('match the generator’s output for the contract and the catalogue of today', async () => {
    for (const [file, expected] of Object.entries(await generateAll())) {
      const actual = fs.readFileSync(path.join(GENERATED_DIR, file), 'utf8');
      expect(actual, `src/generated/${file} is stale: run npm run generate -w @mailsvc/client`).toBe(
        expected,
      );
    }
  });

  it('cover every operation and every template route', () => {
    expect(Object.keys(operations)).toEqual(Object.keys(contractOperations));
    expect(wrapperRoutePaths).toHaveLength(listTemplates().length);
    expect(wrapperRoutePaths).toHaveLength(52);
  });

  it('give the core client one method per operation, at the SDK name of the contract', () => {
    const client = new Mailsvc({ apiKey: 'msk_x_y', baseUrl: 'http://127.0.0.1:1' }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    for (const [id, op] of Object.entries(contractOperations)) {
      // `group.method`, or deeper: `contacts.groups.upsert`.
      const method = op.sdk
        .split('.')
        .reduce<unknown>((at, name) => (at as Record<string, unknown>)?.[name], client);
      expect(typeof method, `${id} → client.${op.sdk}()`).toBe('function');
    }
  });

  it('give the wrapper client one method per route: /auth/login-code is wrapper.auth.loginCode()', () => {
    const wrapper = new MailsvcWrapper({ baseUrl: 'http://127.0.0.1:1' }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    for (const t of listTemplates()) {
      const [group, name] = t.routePath.replace(/^\//, '').split('/') as [string, string];
      const method = name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      expect(typeof wrapper[group]?.[method], `${t.routePath}`).toBe('function');
    }
    expect(typeof (wrapper as unknown as MailsvcWrapper).auth.loginCode).toBe('function');
  });
});
