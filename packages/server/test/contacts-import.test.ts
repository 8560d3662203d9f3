import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { run } from '@mailsvc/testkit/cli-runner';
import {
  backend,
  bearer,
  createHarness,
  type Harness,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runContacts } from '../src/cli/contacts.js';
import {
  type ImportOptions,
  ImportRefusedError,
  importContacts,
  readHeader,
} from '../src/domain/contacts/import-contacts.js';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

async function runImport(csv: string | Buffer, opts: Partial<ImportOptions> = {}, scope = s) {
  const skipped: [number, string][] = [];
  const summary = await importContacts(h.runtime.deps, {
    environmentId: scope.environmentId,
    input: Readable.from([typeof csv === 'string' ? Buffer.from(csv) : csv]),
    actor: 'test',
    onSkippedRow: (line, reason) => skipped.push([line, reason]),
    ...opts,
  });
  return { summary, skipped };
}

const get = async (emailOrContactId: string, apiKey = s.apiKey) => {
  const res = await h.request({
    method: 'POST',
    url: '/v1/contacts/get',
    headers: { ...bearer(apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ emailOrContactId }),
  });
  return res.statusCode === 200 ? res.json().contact : null;
};

const countContacts = async (tenantId = s.tenantId) =>
  Number(
    (
      await h.runtime.deps.db
        .selectFrom('contacts')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('importContacts', () => {
  it('imports valid rows with name and custom fields, and reports each invalid row with its line and reason', async () => {
    const t = await seedScope(h);
    const csv = [
      'email,name,company,plan',
      'ada@example.com,Ada Lovelace,Babbage & Co,pro',
      'not-an-address,Nobody,,',
      '"grace@example.com","Hopper, Grace","Navy",',
      'CAROL@Example.com,,,free',
      'dan@example.com,"Evil\u202eName",,',
      'erin@example.com,Erin',
      `frank@example.com,${'x'.repeat(201)},,`,
      `gail@example.com,Gail,${'y'.repeat(1001)},`,
      '',
      'henry@example.com,"Henry\nthe Eighth",,',
    ].join('\n');
    const { summary, skipped } = await runImport(csv, {}, t);
    expect(summary).toEqual({ rows: 9, created: 3, updated: 0, skipped: 6 });
    expect(skipped).toEqual([
      [3, expect.stringMatching(/^email: /)],
      [6, 'name: must not contain line breaks, control, bidirectional or invisible characters'],
      [7, 'has 2 fields where the header has 4'],
      [8, expect.stringMatching(/^name: must NOT have more than 200 characters/)],
      [9, expect.stringMatching(/^company: must NOT have more than 1000 characters/)],
      [12, 'name: must not contain line breaks, control, bidirectional or invisible characters'],
    ]);
    expect(await get('ada@example.com', t.apiKey)).toMatchObject({
      name: 'Ada Lovelace',
      customFields: { company: 'Babbage & Co', plan: 'pro' },
      groupSlugs: [],
    });
    expect(await get('grace@example.com', t.apiKey)).toMatchObject({
      name: 'Hopper, Grace',
      customFields: { company: 'Navy' },
    });
    // An empty cell sets nothing.
    expect(await get('carol@example.com', t.apiKey)).toMatchObject({
      name: null,
      customFields: { plan: 'free' },
    });
  });

  it('adds every imported contact to --group (created when missing), keeping their other groups', async () => {
    const t = await seedScope(h);
    await h.request({
      method: 'POST',
      url: '/v1/contacts/upsert',
      headers: { ...bearer(t.apiKey), 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'member@example.com', groupSlugs: ['staff'] }),
    });
    const { summary } = await runImport(
      'email\nmember@example.com\nnew@example.com\n',
      { groupSlug: 'imported' },
      t,
    );
    expect(summary).toMatchObject({ created: 1, updated: 1, skipped: 0 });
    expect((await get('member@example.com', t.apiKey)).groupSlugs).toEqual(['imported', 'staff']);
    expect((await get('new@example.com', t.apiKey)).groupSlugs).toEqual(['imported']);
    const group = await h.runtime.deps.db
      .selectFrom('contact_groups')
      .select('name')
      .where('tenant_id', '=', t.tenantId)
      .where('slug', '=', 'imported')
      .executeTakeFirst();
    expect(group).toEqual({ name: 'imported' });
  });

  it('updates on a second import instead of duplicating: same ids, fields merged', async () => {
    const t = await seedScope(h);
    const first = 'email,name,tier\na@example.com,A,1\nb@example.com,B,2\n';
    expect((await runImport(first, {}, t)).summary).toMatchObject({ created: 2, updated: 0 });
    const before = await get('a@example.com', t.apiKey);
    h.clock.advance(1000);
    const second = 'Email,tier,city\nA@EXAMPLE.COM,3,Paris\nb@example.com,,\n';
    expect((await runImport(second, {}, t)).summary).toMatchObject({ created: 0, updated: 2, skipped: 0 });
    expect(await countContacts(t.tenantId)).toBe(2);
    expect(await get('a@example.com', t.apiKey)).toMatchObject({
      id: before.id,
      name: 'A',
      customFields: { tier: '3', city: 'Paris' },
    });
    expect((await get('b@example.com', t.apiKey)).customFields).toEqual({ tier: '2' });
  });

  it('writes a contact named twice in the file in file order, across and within batches', async () => {
    const t = await seedScope(h);
    const rows = ['email,n'];
    for (let i = 0; i < 7; i++) rows.push(`same@example.com,${i}`, `other${i}@example.com,${i}`);
    const { summary } = await runImport(rows.join('\n'), { batchSize: 3 }, t);
    expect(summary).toEqual({ rows: 14, created: 8, updated: 6, skipped: 0 });
    expect((await get('same@example.com', t.apiKey)).customFields).toEqual({ n: '6' });
  });

  it('skips a row whose custom fields would pass 50 keys once merged, and writes the rest of its batch', async () => {
    const t = await seedScope(h);
    const keys = Array.from({ length: 30 }, (_, i) => `k${i}`);
    const more = Array.from({ length: 30 }, (_, i) => `m${i}`);
    await runImport(`email,${keys.join(',')}\nfull@example.com,${keys.map(() => 'v').join(',')}\n`, {}, t);
    const csv = `email,${more.join(',')}\nfull@example.com,${more.map(() => 'v').join(',')}\nfine@example.com,${more.map(() => 'v').join(',')}\n`;
    const { summary, skipped } = await runImport(csv, {}, t);
    expect(summary).toMatchObject({ created: 1, updated: 0, skipped: 1 });
    expect(skipped).toEqual([[2, expect.stringContaining('at most 50 keys once merged')]]);
    expect(Object.keys((await get('full@example.com', t.apiKey)).customFields)).toHaveLength(30);
    const wide = Array.from({ length: 51 }, (_, i) => `w${i}`);
    const tooWide = await runImport(
      `email,${wide.join(',')}\nwide@example.com,${wide.map(() => '1').join(',')}\n`,
      {},
      t,
    );
    expect(tooWide.skipped).toEqual([[2, 'custom fields: must have at most 50 keys (it sets 51)']]);
  });

  it('skips rows PostgreSQL cannot store and rows that are not valid CSV, and reads a UTF-8 BOM', async () => {
    const t = await seedScope(h);
    const csv = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('email,name\nnul@example.com,"A\u0000B"\nbad@example.com,"unclosed\nok@example.com,Fine\n'),
    ]);
    const { summary, skipped } = await runImport(csv, {}, t);
    // An unclosed quote swallows the rest of the file: reported with the line it ends at.
    expect(skipped.sort((a, b) => a[0] - b[0])).toEqual([
      [2, 'name: must not contain NUL characters or unpaired UTF-16 surrogates'],
      [4, expect.stringMatching(/^not valid CSV: Quote Not Closed/)],
    ]);
    expect(summary).toEqual({ rows: 2, created: 0, updated: 0, skipped: 2 });
    expect(await get('nul@example.com', t.apiKey)).toBeNull();
  });

  it('ends a row at every CRLF, LF or CR, however the file mixes them; a quoted line break stays in its value', async () => {
    const t = await seedScope(h);
    const csv =
      'email,note\r\nx1@example.com,n1\nx2@example.com\r\nx3@example.com,n3\r"x4@example.com","two\nlines"\r\n';
    const { summary, skipped } = await runImport(csv, {}, t);
    expect(skipped).toEqual([[3, 'has 1 fields where the header has 2']]);
    expect(summary).toEqual({ rows: 4, created: 3, updated: 0, skipped: 1 });
    expect((await get('x1@example.com', t.apiKey))?.customFields).toEqual({ note: 'n1' });
    expect((await get('x3@example.com', t.apiKey))?.customFields).toEqual({ note: 'n3' });
    expect((await get('x4@example.com', t.apiKey))?.customFields).toEqual({ note: 'two\nlines' });
  });

  it('refuses a file without an email column, with a repeated column or a column that cannot be a custom field', () => {
    const refused = (header: string[]) => {
      try {
        readHeader(header);
      } catch (err) {
        expect(err).toBeInstanceOf(ImportRefusedError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused(['name', 'company'])).toMatch(/no "email" column/);
    expect(refused(['email', 'EMAIL'])).toMatch(/"email" 2 times/);
    expect(refused(['email', 'plan', 'plan'])).toMatch(/"plan" twice/);
    expect(refused(['email', 'first name'])).toMatch(/column 2 \("first name"\) cannot be a custom field/);
    expect(refused(['email', ''])).toMatch(/column 2/);
    expect(refused(['email', '__proto__'])).toMatch(/column 2 \("__proto__"\) cannot be a custom field/);
    expect(readHeader([' email ', 'Name', 'tier'])).toEqual({
      email: 0,
      name: 1,
      fields: [['tier', 2]],
      count: 3,
    });
  });

  it('refuses an empty file, an unknown environment and a bad --group, importing nothing', async () => {
    await expect(runImport('')).rejects.toThrow(/the file is empty/);
    await expect(
      runImport('email\nx@example.com\n', { environmentId: `env_${'0'.repeat(26)}` }),
    ).rejects.toThrow(/No environment/);
    await expect(runImport('email\nx@example.com\n', { groupSlug: 'Not A Slug' })).rejects.toThrow(
      /not a group slug/,
    );
    expect(await get('x@example.com')).toBeNull();
  });

  it('reports progress after each batch and writes one audit event', async () => {
    const t = await seedScope(h);
    const rows = ['email', ...Array.from({ length: 25 }, (_, i) => `p${i}@example.com`)].join('\n');
    const seen: number[] = [];
    await runImport(rows, { batchSize: 10, onProgress: (p) => seen.push(p.rows) }, t);
    expect(seen.at(-1)).toBe(25);
    expect(seen.length).toBe(3);
    const audit = await h.runtime.deps.db
      .selectFrom('audit_events')
      .select(['action', 'details'])
      .where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'contacts.imported')
      .execute();
    expect(audit).toEqual([
      { action: 'contacts.imported', details: { rows: 25, created: 25, updated: 0, skipped: 0 } },
    ]);
  });
});

describe('mailsvc contacts import', () => {
  const io = () => {
    const out = { stdout: [] as string[], stderr: [] as string[] };
    return {
      out,
      io: { stdout: (x: string) => out.stdout.push(x), stderr: (x: string) => out.stderr.push(x) },
    };
  };

  it('refuses bad arguments with exit code 2 and the usage', async () => {
    for (const args of [
      ['import'],
      ['import', '--environment', 'nope', '--file', 'x.csv'],
      ['import', '--environment', s.environmentId],
      ['import', '--environment', s.environmentId, '--file', '/no/such/file.csv'],
      ['import', '--environment', s.environmentId, '--file', 'x.csv', '--colour', 'red'],
      ['export'],
    ]) {
      const { out, io: sink } = io();
      expect(await runContacts(args, sink), args.join(' ')).toBe(2);
      expect(out.stderr.join('\n')).toMatch(/^mailsvc contacts: .*\(usage: mailsvc contacts import/);
    }
    const { out, io: sink } = io();
    expect(await runContacts(['--help'], sink)).toBe(0);
    expect(out.stdout.join('\n')).toMatch(/^Usage: mailsvc contacts import/);
  });

  it('imports a file as a separate process against the database, printing skipped lines and the summary', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-import-'));
    try {
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        HOME: os.tmpdir(),
        LOG_LEVEL: 'warn',
      };
      let environmentId = s.environmentId;
      if (backend === 'postgres') env.DATABASE_URL = h.runtime.config.DATABASE_URL!;
      else {
        // The harness's database is in memory: the command gets a data directory of its own.
        env.MAILSVC_DATA_DIR = dir;
        const boot = await run(['admin', 'bootstrap', '--json'], env);
        expect(boot.code, boot.stderr).toBe(0);
        environmentId = JSON.parse(boot.stdout).environmentId;
      }
      const file = path.join(dir, 'contacts.csv');
      fs.writeFileSync(file, 'email,name\ncli-1@example.com,One\nbroken\ncli-2@example.com,Two\n');
      const args = ['contacts', 'import', '--environment', environmentId, '--file', file, '--group', 'cli'];
      const r = await run(args, env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('line 3: has 1 fields where the header has 2');
      expect(r.stdout).toMatch(/^3 rows: 2 created, 0 updated, 1 skipped \(/);
      const again = await run([...args, '--json'], env);
      expect(JSON.parse(again.stdout)).toEqual({ rows: 3, created: 0, updated: 2, skipped: 1 });
      const unknown = await run(
        ['contacts', 'import', '--environment', `env_${'0'.repeat(26)}`, '--file', file],
        env,
      );
      expect([unknown.code, unknown.stderr.trim()]).toEqual([
        1,
        `mailsvc contacts import: No environment env_${'0'.repeat(26)}.`,
      ]);
      if (backend === 'postgres') expect((await get('cli-2@example.com'))?.groupSlugs).toEqual(['cli']);
      if (backend === 'pglite') {
        // A running `mailsvc start` holds the embedded database: the import says what to do.
        fs.writeFileSync(
          path.join(dir, 'mailsvc.lock'),
          JSON.stringify({ pid: process.pid, command: 'start', startedAt: new Date().toISOString() }),
        );
        const held = await run(args, env);
        expect(held.code).toBe(1);
        expect(held.stderr).toContain('`mailsvc start`');
        expect(held.stderr).toContain('POST /v1/contacts/upsert-many');
        expect(held.stderr).not.toContain('use another MAILSVC_DATA_DIR');
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Five processes, each loading the server and (on PGlite) opening the embedded database: 33 s
    // for the first alone was seen on a loaded 2-core machine. A bound it cannot miss, not a speed check.
  }, 300_000);
});
