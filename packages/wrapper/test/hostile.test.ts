// The hostile-input suite of the wrapper: the generated corpus (testkit/hostile-corpus.ts) over
// its 52 template routes, /openapi.json and preflights, under / and the emulator prefix, through
// the router against a real in-process core (sender override off and on), and malformed HTTP over
// a real socket of the standalone server. Every answer: no 5xx, X-Request-Id, errors in the
// envelope with a wrapper code (or a core code it passes through) and its status; afterwards the
// wrapper and the core are healthy and nothing hostile was stored.

import { coreErrors as errorCatalogue } from '@mailsvc/contract/errors';
import { backend, createHarness, type Harness, type Scope } from '@mailsvc/testkit/harness';
import {
  ALL_METHODS,
  type Answer,
  answerProblems,
  type BodyCase,
  type Catalogue,
  contentTypeBodies,
  describeFailure,
  EMAIL_ATTACKS,
  essentialBodies,
  FEATURED_TEMPLATES,
  type FieldSpec,
  fieldBodies,
  type HostileRequest,
  IDENTIFIER_ATTACKS,
  malformedHttp,
  NAME_REFUSED,
  pathTricks,
  runPool,
  STORED_ADDRESS,
  seedRoomyScope,
  sizeBodies,
  structuralBodies,
  Tally,
  templateDataFields,
  visible,
  withValue,
  wrongTypeBodies,
} from '@mailsvc/testkit/hostile-corpus';
import { rawExchange } from '@mailsvc/testkit/raw-http';
import { templateRoutes } from '@mailsvc/wrapper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapperConfigFrom } from '../src/config.js';
import { coreErrorHandling, wrapperErrors } from '../src/errors.js';
import type { WrapperRouter } from '../src/router.js';
import { type RunningWrapper, startWrapperServer } from '../src/server.js';
import { APP_ORIGIN, captureLogs, testRouter } from './helpers.js';

let h: Harness;
let s: Scope;
/** MAILSVC_ALLOW_SENDER_OVERRIDE unset: from, fromName and replyTo are refused. */
let strict: WrapperRouter;
/** MAILSVC_ALLOW_SENDER_OVERRIDE=true. */
let override: WrapperRouter;
let server: RunningWrapper;

const tally = new Tally();
const timings: string[] = [];
/** messageIds of every 200 answer: the only messages the corpus may have stored. */
const acceptedIds = new Set<string>();

/** The wrapper's own codes and the core codes it passes through with their status. */
const catalogue: Catalogue = {
  ...Object.fromEntries(
    Object.entries(coreErrorHandling)
      .filter(([, handling]) => handling === 'pass')
      .map(([code]) => [code, errorCatalogue[code as keyof typeof errorCatalogue]]),
  ),
  ...wrapperErrors,
};

const PREFIX = '/demo-project/europe-west2/api';

beforeAll(async () => {
  h = await createHarness();
  s = await seedRoomyScope(h, 'wrapper');
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const address = h.app.server.address();
  const coreUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const settings = { MAILSVC_API_KEY: s.apiKey, MAILSVC_CORE_URL: coreUrl };
  strict = testRouter(settings).router;
  override = testRouter({ ...settings, MAILSVC_ALLOW_SENDER_OVERRIDE: true }).router;
  server = await startWrapperServer({
    config: wrapperConfigFrom({
      ...settings,
      MAILSVC_ALLOWED_ORIGINS: APP_ORIGIN,
      MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: 0,
      MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: 0,
    }),
    port: 0,
    host: '127.0.0.1',
    log: captureLogs().log,
    timeouts: { headersMs: 1000, requestMs: 2000 },
  });
});

afterAll(async () => {
  console.log(`${tally.report(`hostile corpus, wrapper, ${backend}`)}\n${timings.join('\n')}`);
  await server?.close();
  await strict?.close();
  await override?.close();
  await h?.close();
});

// ---- running the corpus

async function handle(router: WrapperRouter, req: HostileRequest, i: number): Promise<Answer> {
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  const res = await router.handle({
    method: req.method,
    path: req.url,
    headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v])),
    body,
    ip: `198.18.${(i >> 8) & 255}.${i & 255}`,
  });
  const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { status: res.status, headers, body: res.body };
}

async function expectEveryAnswerDocumented(
  label: string,
  requests: HostileRequest[],
  router: WrapperRouter = strict,
) {
  const started = Date.now();
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  await runPool(requests, 8, async (req, i) => {
    let res: Answer;
    try {
      res = await handle(router, req, i);
    } catch (err) {
      failures.push(
        `[${req.endpoint}] ${req.name}: ${req.method} ${req.url} → the router threw ${String(err)}`,
      );
      return;
    }
    tally.add(req.endpoint, res.status);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (res.status === 200 && req.method === 'POST' && res.body !== '') {
      const id = JSON.parse(res.body).messageId;
      if (typeof id === 'string') acceptedIds.add(id);
    }
    const problems = answerProblems(req, res, catalogue);
    if (problems.length > 0) failures.push(describeFailure(req, res, problems));
  });
  timings.push(`  ${label}: ${requests.length} requests in ${Date.now() - started} ms`);
  expect(requests.length).toBeGreaterThan(0);
  expect(failures.slice(0, 80), `${failures.length} of ${requests.length} requests failed`).toEqual([]);
  return statuses;
}

const JSON_TYPE = 'application/json';
const routeOf = (templateId: string) => templateRoutes.find((r) => r.templateId === templateId)!;

function bodyRequests(path: string, cases: BodyCase[], prefix = ''): HostileRequest[] {
  return cases.map((c) => ({
    endpoint: `POST ${path}`,
    name: prefix ? `${c.name} (under the emulator prefix)` : c.name,
    method: 'POST',
    url: `${prefix}${path}`,
    headers: { 'content-type': 'contentType' in c ? c.contentType : JSON_TYPE },
    body: c.body,
    mustRefuse: c.mustRefuse,
    ...(c.refusePath !== undefined && { refusePath: c.refusePath }),
    ...(c.isSizeAttack && { isSizeAttack: true }),
  }));
}

/** The envelope's own fields (DESIGN.md §8), each with its hostile variants. */
const envelopeFields = (): FieldSpec[] => [
  { pointer: '/to', kind: 'email', valid: 'jane@example.com', limits: [254], extra: EMAIL_ATTACKS },
  { pointer: '/templateVersion', kind: 'exact', valid: 'v1', limits: [32], extra: IDENTIFIER_ATTACKS },
  // Any printable ASCII is a key: only other characters and the length are refused.
  {
    pointer: '/idempotencyKey',
    kind: 'exact',
    valid: 'wrapper-key-1',
    limits: [120],
    extra: IDENTIFIER_ATTACKS.map((v) => ({ ...v, mustRefuse: false })),
  },
  // metadata values (DESIGN.md §12): passed on to the core, which applies the same rule
  { pointer: '/metadata/userId', kind: 'metadata', valid: 'u_4821', limits: [256], allowEmpty: true },
];

/** from, fromName and replyTo: with the override every rule applies, without it every value is refused. */
const senderFields = (isAllowed: boolean): FieldSpec[] =>
  [
    {
      pointer: '/from',
      kind: 'email',
      valid: 'notifications@example.com',
      limits: [254],
      extra: EMAIL_ATTACKS,
    },
    { pointer: '/fromName', kind: 'name', valid: 'Acme Support', limits: [120], allowEmpty: true },
    { pointer: '/replyTo', kind: 'email', valid: 'support@example.com', limits: [254], extra: EMAIL_ATTACKS },
  ].map((f) => (isAllowed ? (f as FieldSpec) : ({ ...f, kind: 'exact', allowEmpty: false } as FieldSpec)));

const baseFor = (templateId: string) => ({
  to: 'jane@example.com',
  data: templateDataFields(templateId).data,
});

// ---- the featured routes: every field, every structural attack

describe('template routes: bodies', () => {
  it('answers every hostile body on the featured routes with a documented 4xx in the envelope (or forwards it when no rule refuses it)', async () => {
    const requests: HostileRequest[] = [];
    const covered = new Set<string>();
    for (const templateId of FEATURED_TEMPLATES) {
      const { path } = routeOf(templateId);
      const base = baseFor(templateId);
      const t = templateDataFields(templateId, covered);
      requests.push(
        ...bodyRequests(path, [
          ...fieldBodies(base, [...envelopeFields(), ...senderFields(false), ...t.fields]),
          ...wrongTypeBodies(base, '/data'),
          ...t.objects.flatMap((o) => wrongTypeBodies(base, o)),
          ...structuralBodies(base, '/data'),
          ...sizeBodies(base, undefined, ['/data', '']),
          ...contentTypeBodies(base),
        ]),
      );
    }
    const statuses = await expectEveryAnswerDocumented('featured routes, bodies', requests);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(requests.length / 3);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
  });

  it('answers hostile from, fromName and replyTo with MAILSVC_ALLOW_SENDER_OVERRIDE=true by the core rules', async () => {
    const requests: HostileRequest[] = [];
    for (const templateId of ['login-code', 'mention']) {
      const { path } = routeOf(templateId);
      for (const r of bodyRequests(path, fieldBodies(baseFor(templateId), senderFields(true))))
        requests.push({ ...r, endpoint: `${r.endpoint} (sender override)` });
    }
    await expectEveryAnswerDocumented('sender fields with the override', requests, override);
  });

  it('answers the common hostile bodies on every one of the 52 routes, under / and the emulator prefix', async () => {
    const requests: HostileRequest[] = [];
    for (const [i, route] of templateRoutes.entries()) {
      const base = baseFor(route.templateId);
      const cases: BodyCase[] = [
        ...essentialBodies(base, '/data'),
        ...wrongTypeBodies(base, '/data').slice(0, 2),
        {
          name: '/to: CRLF Bcc injection',
          body: JSON.stringify({ ...base, to: 'jane@example.com\r\nBcc: evil@example.com' }),
          mustRefuse: true,
        },
        {
          name: '/from without the override',
          body: JSON.stringify({ ...base, from: 'a@example.com' }),
          mustRefuse: true,
        },
        {
          name: '/fromName without the override',
          body: JSON.stringify({ ...base, fromName: 'PayPal\u202e' }),
          mustRefuse: true,
        },
        {
          name: '/templateVersion: a path traversal',
          body: JSON.stringify({ ...base, templateVersion: '../v1' }),
          mustRefuse: true,
        },
        {
          name: '/data/subject: NUL',
          body: JSON.stringify(withValue(base, '/data/subject', 'a\u0000b')),
          mustRefuse: true,
          refusePath: '/data/subject',
        },
      ];
      requests.push(...bodyRequests(route.path, cases, i % 2 === 0 ? '' : PREFIX));
    }
    await expectEveryAnswerDocumented('every route, common bodies', requests);
  });
});

// ---- methods, paths, preflights, headers

describe('methods, paths, preflights and headers', () => {
  it('answers every method on every route and on /openapi.json with 405 and Allow unless the path allows it', async () => {
    const requests: HostileRequest[] = [];
    const few = ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'PROPFIND', 'QUERY', 'CONNECT'];
    const paths: [string, readonly string[], string[]][] = [
      ...templateRoutes.map((r, i): [string, readonly string[], string[]] => [
        r.path,
        i < 2 ? ALL_METHODS : few,
        ['POST', 'OPTIONS'],
      ]),
      ['/openapi.json', ALL_METHODS, ['GET', 'HEAD', 'OPTIONS']],
    ];
    for (const [path, methods, allowed] of paths)
      for (const prefix of ['', PREFIX])
        for (const method of methods)
          requests.push({
            endpoint: path === '/openapi.json' ? 'GET /openapi.json' : `POST ${path}`,
            name: `method ${method}${prefix && ' under the emulator prefix'}`,
            method,
            url: `${prefix}${path}`,
            headers: { 'content-type': JSON_TYPE },
            body: '{}',
            expect405: !allowed.includes(method),
          });
    await expectEveryAnswerDocumented('every method on every path', requests);
  });

  it('answers path tricks and emulator-prefix tricks with a documented answer', async () => {
    const valid = JSON.stringify({ to: 'paths@example.com', data: { code: '482913' } });
    const requests: HostileRequest[] = [];
    const add = (name: string, url: string, method = 'POST') =>
      requests.push({
        endpoint: 'path tricks',
        name,
        method,
        url,
        headers: { 'content-type': JSON_TYPE },
        ...(method === 'POST' && { body: valid }),
      });
    for (const [name, url] of pathTricks('/auth/login-code')) add(`path: ${name}`, url);
    for (const [name, url] of pathTricks('/openapi.json')) add(`openapi path: ${name}`, url, 'GET');
    const prefixTricks: [string, string][] = [
      ['another region', '/demo/europe-west1/api/auth/login-code'],
      ['no project', '/europe-west2/api/auth/login-code'],
      ['empty segments', '//europe-west2//auth/login-code'],
      ['the prefix alone', PREFIX],
      ['the prefix and a slash', `${PREFIX}/`],
      ['the prefix twice', `${PREFIX}${PREFIX}/auth/login-code`],
      ['a deeper prefix', `/a/b${PREFIX}/auth/login-code`],
      ['a 10 KB project', `/${'p'.repeat(10 * 1024)}/europe-west2/api/auth/login-code`],
      ['15,000 slashes', `/auth/login-code${'/'.repeat(15_000)}`],
      ['15,000 slashes after the prefix', `${PREFIX}${'/'.repeat(15_000)}auth/login-code`],
      ['an encoded prefix', '/demo%2Feurope-west2%2Fapi/auth/login-code'],
      ['a query with a prefix', `/auth/login-code?${PREFIX.slice(1)}`],
      ['no leading slash', 'auth/login-code'],
      ['empty', ''],
      ['an absolute URL', 'http://evil.example/auth/login-code'],
    ];
    for (const [name, url] of prefixTricks) add(`prefix: ${name}`, url);
    await expectEveryAnswerDocumented('path tricks', requests);
  });

  it('answers preflights and hostile Origin, App Check and size headers in the envelope', async () => {
    const valid = (n: number) => JSON.stringify({ to: `origin-${n}@example.com`, data: { code: '1' } });
    const requests: HostileRequest[] = [];
    for (const route of templateRoutes)
      for (const prefix of ['', PREFIX])
        requests.push({
          endpoint: 'OPTIONS preflight',
          name: `a preflight from the allowed origin${prefix && ' under the emulator prefix'}`,
          method: 'OPTIONS',
          url: `${prefix}${route.path}`,
          headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' },
        });
    const origins: [string, string | string[]][] = [
      ['null', 'null'],
      ['a look-alike', `${APP_ORIGIN}.evil.example`],
      ['another case', APP_ORIGIN.toUpperCase()],
      ['a trailing slash', `${APP_ORIGIN}/`],
      ['a CRLF', `${APP_ORIGIN}\r\nX-Injected: 1`],
      ['a NUL', `${APP_ORIGIN}\u0000`],
      ['10 KB', `https://${'o'.repeat(10 * 1024)}.example`],
      ['empty', ''],
      ['two origins', [APP_ORIGIN, 'https://evil.example']],
      ['a wildcard', '*'],
    ];
    let n = 0;
    for (const [name, origin] of origins) {
      for (const path of ['/auth/login-code', '/openapi.json'])
        requests.push({
          endpoint: 'OPTIONS preflight',
          name: `a preflight from ${name}`,
          method: 'OPTIONS',
          url: path,
          headers: { origin, 'access-control-request-method': 'POST' },
          mustRefuse: true,
        });
      requests.push({
        endpoint: 'POST /auth/login-code',
        name: `a POST from ${name}`,
        method: 'POST',
        url: '/auth/login-code',
        headers: { origin, 'content-type': JSON_TYPE },
        body: valid(++n),
        mustRefuse: true,
      });
    }
    const preflightHeaders: [string, Record<string, string>][] = [
      ['Access-Control-Request-Method: DELETE', { 'access-control-request-method': 'DELETE' }],
      ['Access-Control-Request-Method with a CRLF', { 'access-control-request-method': 'POST\r\nX: 1' }],
      ['a 10 KB Access-Control-Request-Headers', { 'access-control-request-headers': 'x-a,'.repeat(2500) }],
    ];
    for (const [name, headers] of preflightHeaders)
      requests.push({
        endpoint: 'OPTIONS preflight',
        name,
        method: 'OPTIONS',
        url: '/auth/login-code',
        headers: { origin: APP_ORIGIN, ...headers },
      });
    const others: [string, Record<string, string | string[]>][] = [
      ['an App Check token that is garbage', { 'x-firebase-appcheck': 'x'.repeat(10 * 1024) }],
      [
        '200 extra headers',
        Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`x-h-${i}`, 'a'.repeat(50)])),
      ],
      ['a spoofed X-Forwarded-For', { 'x-forwarded-for': '127.0.0.1, ::1' }],
      ['two Content-Types', { 'content-type': [JSON_TYPE, 'text/plain'] }],
      ['a client X-Request-Id', { 'x-request-id': 'evil\r\nSet-Cookie: x=y' }],
    ];
    for (const [name, headers] of others)
      requests.push({
        endpoint: 'POST /auth/login-code',
        name,
        method: 'POST',
        url: '/auth/login-code',
        headers: { 'content-type': JSON_TYPE, ...headers },
        body: valid(++n),
      });
    await expectEveryAnswerDocumented('preflights and headers', requests);
  });
});

// ---- raw sockets

describe('malformed HTTP on the standalone server', () => {
  it('answers every malformed request in the envelope with X-Request-Id, never a 5xx', async () => {
    const cases = malformedHttp({ postPath: '/auth/login-code', getPath: '/openapi.json' });
    const started = Date.now();
    const failures: string[] = [];
    const seen: string[] = [];
    await runPool(cases, 8, async (c) => {
      const res = await rawExchange(server.port, c.chunks);
      seen.push(`${c.name} → ${res.status}`);
      tally.add('raw socket', res.status);
      const req: HostileRequest = {
        endpoint: 'raw socket',
        name: c.name,
        method: 'RAW',
        url: '',
        headers: {},
      };
      const problems = answerProblems(req, res, catalogue);
      if (problems.length > 0)
        failures.push(
          `${c.name}: ${visible(String(c.chunks[0]).slice(0, 100))} → ${visible(res.text.slice(0, 300))} — ${problems.join('; ')}`,
        );
    });
    timings.push(
      `  raw sockets: ${cases.length} requests in ${Date.now() - started} ms (${seen.join(', ')})`,
    );
    expect(failures, `${failures.length} of ${cases.length} raw requests failed`).toEqual([]);
  });
});

// ---- afterwards

describe('afterwards', () => {
  it('does not spend an idempotencyKey on a refused hostile body (5,000 nested arrays in data)', async () => {
    const post = (body: string) =>
      strict.handle({
        method: 'POST',
        path: '/auth/login-code',
        headers: { 'content-type': JSON_TYPE },
        body: Buffer.from(body),
        ip: '203.0.113.8',
      });
    const envelope = '"to":"deep@example.com","idempotencyKey":"wrapper-deep-1"';
    const deep = await post(`{${envelope},"data":{"code":"1","x":${'['.repeat(5000)}${']'.repeat(5000)}}}`);
    expect(deep.status, deep.body).toBe(400);
    expect(JSON.parse(deep.body).error.code).toBe('invalid_request');
    const first = await post(`{${envelope},"data":{"code":"1"}}`);
    expect(first.status, first.body).toBe(200);
    expect(JSON.parse(first.body).idempotent).toBe(false);
    const again = await post(`{${envelope},"data":{"code":"1"}}`);
    expect(JSON.parse(again.body)).toMatchObject({
      idempotent: true,
      messageId: JSON.parse(first.body).messageId,
    });
    acceptedIds.add(JSON.parse(first.body).messageId);
  });

  it('is healthy afterwards: the core answers /healthz and /readyz, and a legitimate send through the wrapper is stored', async () => {
    for (const url of ['/healthz', '/readyz'])
      expect((await h.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    const doc = await strict.handle({ method: 'GET', path: '/openapi.json', headers: {}, ip: '203.0.113.7' });
    expect(doc.status).toBe(200);
    const res = await strict.handle({
      method: 'POST',
      path: `${PREFIX}/auth/login-code`,
      headers: { 'content-type': JSON_TYPE },
      body: Buffer.from(JSON.stringify({ to: 'after-hostile@example.com', data: { code: '482913' } })),
      ip: '203.0.113.7',
    });
    expect(res.status, res.body).toBe(200);
    const { messageId } = JSON.parse(res.body);
    acceptedIds.add(messageId);
    const row = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['to_email', 'template_id'])
      .where('id', '=', messageId)
      .executeTakeFirst();
    expect(row).toEqual({ to_email: 'after-hostile@example.com', template_id: 'login-code' });
    const overSocket = await rawExchange(server.port, [
      'GET /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    ]);
    expect(overSocket.status).toBe(200);
  });

  it('stored nothing hostile: one message per 200 answer, addresses and names without line breaks, controls or bidi', async () => {
    const messages = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['id', 'to_email', 'from_email', 'from_name', 'reply_to'])
      .where('environment_id', '=', s.environmentId)
      .execute();
    const problems: string[] = [];
    for (const m of messages) {
      if (!acceptedIds.has(m.id)) problems.push(`message ${m.id} stored without a 200 answer`);
      for (const [column, value] of [
        ['to_email', m.to_email],
        ['from_email', m.from_email],
        ['reply_to', m.reply_to],
      ] as const)
        if (value !== null && !STORED_ADDRESS.test(value))
          problems.push(`message ${m.id} ${column} ${visible(JSON.stringify(value))}`);
      if (m.from_name !== null && (NAME_REFUSED.test(m.from_name) || m.from_name.length > 120))
        problems.push(`message ${m.id} from_name ${visible(JSON.stringify(m.from_name))}`);
    }
    const stored = new Set(messages.map((m) => m.id));
    for (const id of acceptedIds) if (!stored.has(id)) problems.push(`200 answer ${id} without a message`);
    expect(messages.length).toBeGreaterThan(1);
    expect(problems).toEqual([]);
  });

  it('ran a corpus of at least 500 requests', () => {
    expect(tally.total).toBeGreaterThanOrEqual(500);
  });
});
