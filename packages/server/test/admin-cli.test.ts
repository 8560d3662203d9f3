// The admin commands through both doors, the admin API and the CLI's parsing of arguments: the
// list commands, and errors worded for the person who typed them.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, createHarness, type Harness, postJson, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardAdminCommand, parseAdminArgs, runAdmin } from '../src/cli/admin.js';
import { adminCommands } from '../src/domain/admin/index.js';
import { toAdminFieldProblems } from '../src/domain/admin/input-problems.js';
import { createAjv } from '../src/validation.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/mailsvc.js');

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const adminPost = (url: string, payload: unknown) =>
  h.request({
    method: 'POST',
    url,
    payload: JSON.stringify(payload),
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });

const ok = async (url: string, payload: unknown) => {
  const res = await adminPost(url, payload);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

const unknownId = (prefix: string) => `${prefix}_${'0'.repeat(26)}`;

/** The one-line message parseAdminArgs refuses the arguments with. */
function refusal(args: string[]): string {
  try {
    parseAdminArgs(args);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`accepted: ${args.join(' ')}`);
}

describe('tenants list, projects list and environments list', () => {
  it('lists tenants oldest first, leaving deleted tenants out unless includeDeleted', async () => {
    await ok('/admin/v1/plans/create', { id: 'list-plan', monthlyLimit: 10, overageAllowed: false });
    type Tenant = { id: string; name: string; deletedAt: string | null };
    const created: Tenant[] = [];
    for (const name of ['First', 'Second', 'Third']) {
      created.push((await ok('/admin/v1/tenants/create', { name, plan: 'list-plan' })).tenant);
      h.clock.advance(1000);
    }
    await ok('/admin/v1/tenants/delete', { id: created[1]!.id });
    const ours = (tenants: Tenant[]) => tenants.filter((t) => created.some((c) => c.id === t.id));

    const live = await ok('/admin/v1/tenants/list', {});
    expect(Object.keys(live).sort()).toEqual(['ok', 'tenants']);
    expect(ours(live.tenants)).toEqual([created[0], created[2]]);

    const all = await ok('/admin/v1/tenants/list', { includeDeleted: true });
    expect(ours(all.tenants).map((t) => t.name)).toEqual(['First', 'Second', 'Third']);
    expect(ours(all.tenants)[1]!.deletedAt).not.toBeNull();
  });

  it("lists a tenant's projects and a project's environments oldest first, without deleted ones", async () => {
    const tenant = (await ok('/admin/v1/tenants/create', { name: 'Lister', plan: 'list-plan' })).tenant;
    const other = (await ok('/admin/v1/tenants/create', { name: 'Other', plan: 'list-plan' })).tenant;
    const projects = [];
    for (const name of ['App', 'Gone', 'Site']) {
      projects.push((await ok('/admin/v1/projects/create', { tenant: tenant.id, name })).project);
      h.clock.advance(1000);
    }
    await ok('/admin/v1/projects/create', { tenant: other.id, name: 'Not yours' });
    await ok('/admin/v1/projects/delete', { id: projects[1].id });
    const listed = await ok('/admin/v1/projects/list', { tenant: tenant.id });
    expect(listed.projects).toEqual([projects[0], projects[2]]);

    const environments = [];
    for (const name of ['production', 'old', 'staging']) {
      environments.push(
        (await ok('/admin/v1/environments/create', { project: projects[0].id, name })).environment,
      );
      h.clock.advance(1000);
    }
    await ok('/admin/v1/environments/create', { project: projects[2].id, name: 'elsewhere' });
    await ok('/admin/v1/environments/delete', { id: environments[1].id });
    const envs = await ok('/admin/v1/environments/list', { project: projects[0].id });
    expect(envs.environments).toEqual([environments[0], environments[2]]);
  });

  it('answers a list under an unknown or deleted parent with 404 not_found', async () => {
    const tenant = (await ok('/admin/v1/tenants/create', { name: 'Doomed', plan: 'list-plan' })).tenant;
    await ok('/admin/v1/tenants/delete', { id: tenant.id });
    for (const [url, body] of [
      ['/admin/v1/projects/list', { tenant: unknownId('ten') }],
      ['/admin/v1/projects/list', { tenant: tenant.id }],
      ['/admin/v1/environments/list', { project: unknownId('prj') }],
    ] as const) {
      const res = await adminPost(url, body);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('takes --include-deleted as a bare flag and the parents as ids on the command line', async () => {
    expect(parseAdminArgs(['tenants', 'list']).input).toEqual({});
    expect(parseAdminArgs(['tenants', 'list', '--include-deleted']).input).toEqual({ includeDeleted: true });
    const ten = unknownId('ten');
    expect(parseAdminArgs(['projects', 'list', '--tenant', ten]).input).toEqual({ tenant: ten });
    const prj = unknownId('prj');
    expect(parseAdminArgs(['environments', 'list', '--project', prj]).input).toEqual({ project: prj });
    expect(refusal(['projects', 'list'])).toContain('--tenant: is required');
    const out: string[] = [];
    expect(await runAdmin(['--help'], { stdout: (s) => out.push(s), stderr: () => {} })).toBe(0);
    expect(out.join('\n')).toContain('tenants list [--include-deleted]');
    expect(out.join('\n')).toContain('projects list --tenant ID');
    expect(out.join('\n')).toContain('environments list --project ID');
  });

  it('creates a send key limited to categories from the command line (--scope send --template-categories a,b)', async () => {
    const s = await seedScope(h);
    const env = s.environmentId;
    const args = [
      'keys',
      'create',
      '--environment',
      env,
      '--scope',
      'send',
      '--template-categories',
      'security,transactional',
      '--name',
      'cli key',
    ];
    const input = parseAdminArgs(args).input;
    expect(input).toEqual({
      environment: env,
      scope: 'send',
      templateCategories: ['security', 'transactional'],
      name: 'cli key',
    });
    const made = await h.admin('keys.create', input);
    expect(made.key).toMatchObject({
      scope: 'send',
      templateCategories: ['security', 'transactional'],
      name: 'cli key',
    });
    const send = await postJson(h, made.apiKey, '/v1/send', {
      templateId: 'welcome',
      to: 'cli-key@example.com',
      data: {},
    });
    expect(send.statusCode).toBe(200);
    const list = await postJson(h, made.apiKey, '/v1/messages/list', {});
    expect([list.statusCode, list.json().error.code]).toEqual([403, 'insufficient_scope']);
    const out: string[] = [];
    expect(await runAdmin(['--help'], { stdout: (s) => out.push(s), stderr: () => {} })).toBe(0);
    expect(out.join('\n')).toContain(
      'keys create --environment ID [--scope full|send] [--template-categories security|transactional|notification,…]',
    );
  });
});

describe('admin errors in words', () => {
  it('says which id an id argument expects instead of printing its pattern', () => {
    for (const [args, expected] of [
      [['keys', 'revoke', 'notakey'], 'ID: expected a key id like key_01J…'],
      [['tenants', 'delete', 'prj_1'], 'ID: expected a tenant id like ten_01J…'],
      [['projects', 'update', 'x'], 'ID: expected a project id like prj_01J…'],
      [['environments', 'delete', 'x'], 'ID: expected an environment id like env_01J…'],
      [['keys', 'list', '--environment', 'env_1'], '--environment: expected an environment id like env_01J…'],
    ] as const) {
      const message = refusal([...args]);
      expect(message, args.join(' ')).toContain(expected);
      expect(message, args.join(' ')).not.toContain('pattern');
    }
    const ajv = createAjv();
    const validate = ajv.compile(adminCommands['keys.revoke']!.input);
    validate({ id: 'notakey' });
    expect(toAdminFieldProblems(validate.errors)).toEqual([
      { path: '/id', message: 'expected a key id like key_01J…' },
    ]);
  });

  it('states the name rule instead of printing its regex', () => {
    const message = refusal(['tenants', 'create', '--name', 'Acme\u202Einc', '--plan', 'demo']);
    expect(message).toContain(
      '--name: must not contain line breaks, control, bidirectional or invisible characters',
    );
    expect(message).not.toContain('\\u');
  });

  it('gives one message for a field that takes a time or an empty string (trialEndsAt)', () => {
    const message = refusal(['tenants', 'update', unknownId('ten'), '--trial-ends-at', 'soon']);
    expect(message).toMatch(
      /^--trial-ends-at: must be an RFC 3339 time with an offset, such as 2026-12-01T00:00:00Z, or '' to clear it \(usage: /,
    );
    const validate = createAjv().compile(adminCommands['tenants.update']!.input);
    validate({ id: unknownId('ten'), trialEndsAt: 'soon', accessStatus: 'gone' });
    expect(toAdminFieldProblems(validate.errors)).toEqual([
      { path: '/accessStatus', message: 'must be one of active, trialing, suspended' },
      {
        path: '/trialEndsAt',
        message: "must be an RFC 3339 time with an offset, such as 2026-12-01T00:00:00Z, or '' to clear it",
      },
    ]);
  });

  it('reads a negative number as a value, which the schema then refuses (--rate-limit-per-second -1)', () => {
    const message = refusal([
      'plans',
      'create',
      '--id',
      'neg',
      '--monthly-limit',
      '1',
      '--overage-allowed',
      'true',
      '--rate-limit-per-second',
      '-1',
    ]);
    expect(message).toContain('--rate-limit-per-second: must be >= 0');
    expect(message).not.toContain('ambiguous');
    expect(refusal(['plans', 'update', '--id', 'neg', '--rate-limit-burst', '-5', '--json'])).toContain(
      '--rate-limit-burst: must be >= 0',
    );
    expect(parseAdminArgs(['plans', 'update', '--id', 'neg', '--monthly-limit=7']).input).toEqual({
      id: 'neg',
      monthlyLimit: 7,
    });
  });
});

describe('forwarding to a running server', () => {
  async function listening(app: Awaited<ReturnType<Harness['replica']>>) {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address() as { port: number };
    return `http://127.0.0.1:${address.port}`;
  }

  it('says the running server has its admin API off instead of 404 No route', async () => {
    // A server without an admin token, named in the data directory's lock as the CLI finds it.
    const url = await listening(await h.replica());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-admin-off-'));
    fs.writeFileSync(
      path.join(dir, 'mailsvc.lock'),
      JSON.stringify({
        pid: process.pid,
        command: 'start',
        startedAt: new Date().toISOString(),
        adminUrl: url,
      }),
    );
    fs.writeFileSync(path.join(dir, 'admin-token'), 'a-token-the-server-does-not-have-0123');
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'admin', 'domains', 'list'], {
        env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MAILSVC_DATA_DIR: dir, LOG_LEVEL: 'warn' },
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'mailsvc admin: the admin API of the running server is off: restart it with MAILSVC_ADMIN_TOKEN set, or run the command with DATABASE_URL',
    );
  });

  it('says the running server does not know a command (an older mailsvc) instead of 404 No route', async () => {
    const url = await listening(h.app);
    await expect(forwardAdminCommand(url, ADMIN_TOKEN, 'tenants.archive', {})).rejects.toThrow(
      /the running server does not know 'tenants archive'/,
    );
  });
});
