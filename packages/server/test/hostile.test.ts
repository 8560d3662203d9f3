// The hostile-input suite of the core API: a generated corpus (hostile-corpus.ts) over every
// endpoint — send, quota, health, unsubscribe pages, every admin command, the dev pages — through
// app.inject, and malformed HTTP over a real socket. Every answer: no 5xx, X-Request-Id, errors in
// the envelope with a catalogue code and its status, details as JSON Pointers; afterwards the
// service is healthy and nothing hostile was stored.
import { createSign } from 'node:crypto';
import fs from 'node:fs';
import type net from 'node:net';
import {
  CUSTOM_FIELD_KEY_PATTERN,
  GROUP_SLUG_PATTERN,
  type ListContactsRequest,
  operations,
} from '@mailsvc/contract/api';
import { listTemplates } from '@mailsvc/templates';
import {
  ADMIN_TOKEN,
  backend,
  bearer,
  createHarness,
  type Harness,
  type Scope,
} from '@mailsvc/testkit/harness';
import {
  ALL_METHODS,
  type Answer,
  answerProblems,
  type BodyCase,
  contentTypeBodies,
  describeFailure,
  EMAIL_ATTACKS,
  essentialBodies,
  FEATURED_TEMPLATES,
  type FieldSpec,
  fieldBodies,
  fieldVariants,
  GROUP_SLUG_ATTACKS,
  type HostileRequest,
  IDENTIFIER_ATTACKS,
  malformedHttp,
  NAME_REFUSED,
  nestedArrays,
  pathTricks,
  type RawCase,
  runPool,
  STORED_ADDRESS,
  seedRoomyScope,
  sizeBodies,
  structuralBodies,
  Tally,
  TIMESTAMP_ATTACKS,
  templateDataFields,
  URL_ATTACKS,
  type Variant,
  visible,
  WRONG_TYPES,
  wrongTypeBodies,
} from '@mailsvc/testkit/hostile-corpus';
import { rawExchange } from '@mailsvc/testkit/raw-http';
import { startSinkWorker } from '@mailsvc/testkit/smtp-sink';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';
import { CONSOLE_BODIES } from '../src/api/console/console-routes.js';
import { captureTransport, inboxDir } from '../src/delivery/transports/capture.js';
import { devRoutes } from '../src/dev/gallery/gallery-routes.js';
import { devInboxRoutes } from '../src/dev/inbox/inbox-routes.js';
import { adminCommands } from '../src/domain/admin/index.js';
import { createUnsubscribeToken } from '../src/domain/consent/unsubscribe-token.js';
import { contactListBinding } from '../src/domain/contacts/list-contacts.js';
import { signCursor } from '../src/domain/lists/signed-cursor.js';
import { messageListBinding, toFilter } from '../src/domain/messages/list-messages.js';
import { errorCatalogue } from '../src/errors.js';
import { newId } from '../src/ids.js';

let h: Harness;
let app: FastifyInstance;
let port: number;
/** The scope the corpus sends with. */
let s: Scope;
/** The scope admin commands may change (names, settings, keys, domains). */
let sac: Scope;
let capturedId: string;
let unsubscribeToken: string;

const tally = new Tally();
const timings: string[] = [];
/** messageIds of every 200 answer of POST /v1/send: the only messages that may exist. */
const acceptedIds = new Set<string>();
/** Bulk sends answered 200: their messages are accepted too. */
const acceptedJobIds = new Set<string>();

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_HTTP_REQUEST_TIMEOUT_MS: '2000' } });
  s = await seedRoomyScope(h, 'send');
  sac = await seedRoomyScope(h, 'admin');
  const dir = inboxDir(h.dataDir);
  app = await buildApp(h.runtime.deps, {
    adminToken: ADMIN_TOKEN,
    // The gallery with its send route (as on the embedded database), so that its methods and
    // bodies are covered too; the corpus never sends through it (another origin, or no project).
    extraRoutes: [
      (a) => devRoutes(a, h.runtime.deps, { send: { isOn: true } }),
      (a) => devInboxRoutes(a, { dir }),
    ],
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
  // One captured message, so the dev inbox pages have a real id to serve.
  capturedId = newId('msg');
  await captureTransport(dir).send({
    messageId: capturedId,
    envelope: { from: 'bounces@mailsvc.test', to: 'jane@example.com' },
    raw: Buffer.from(
      'From: a@mailsvc.test\r\nTo: jane@example.com\r\nSubject: =?utf-8?q?hi=0D=0ABcc:_x?=\r\n\r\nhello\r\n',
    ),
    meta: { templateId: 'login-code', subject: 'hi\r\nBcc: x' },
  });
  unsubscribeToken = createUnsubscribeToken(h.runtime.deps.keys.unsubscribe, {
    environmentId: s.environmentId,
    email: 'unsubscribe-hostile@example.com',
    scope: 'app_notifications',
  });
});

afterAll(async () => {
  console.log(`${tally.report(`hostile corpus, core API, ${backend}`)}\n${timings.join('\n')}`);
  await app?.close();
  await h?.close();
});

// ---- running the corpus

// Each request from its own address: the failed-authentication limit per client IP would turn the
// Authorization cases into 429s, and the corpus must reach validation.
const ipOf = (i: number) => `198.18.${(i >> 8) & 255}.${i & 255}`;

async function injectOne(req: HostileRequest, i: number): Promise<Answer> {
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(([, v]) => v !== undefined),
  ) as Record<string, string | string[]>;
  const res = await app.inject({
    method: req.method as 'GET',
    url: req.url,
    headers,
    ...(req.body !== undefined && { payload: req.body }),
    remoteAddress: ipOf(i),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

/** Runs the requests, checks every answer, and fails with one line per offending request. */
async function expectEveryAnswerDocumented(label: string, requests: HostileRequest[], concurrency = 8) {
  const started = Date.now();
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  await runPool(requests, concurrency, async (req, i) => {
    let res: Answer;
    try {
      res = await injectOne(req, i);
    } catch (err) {
      failures.push(`[${req.endpoint}] ${req.name}: ${req.method} ${req.url} → inject threw ${String(err)}`);
      return;
    }
    tally.add(req.endpoint, res.status);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    // Any 200 with a messageId (a path trick may land on the send route too).
    if (res.status === 200 && /^application\/json/.test(String(res.headers['content-type']))) {
      const body = res.body === '' ? {} : JSON.parse(res.body);
      if (typeof body.messageId === 'string') acceptedIds.add(body.messageId);
      // a batch's accepted items
      for (const r of Array.isArray(body.results) ? body.results : [])
        if (typeof r?.messageId === 'string') acceptedIds.add(r.messageId);
      if (typeof body.jobId === 'string' && typeof body.queued === 'number') acceptedJobIds.add(body.jobId);
    }
    const problems = answerProblems(req, res, errorCatalogue);
    if (problems.length > 0) failures.push(describeFailure(req, res, problems));
  });
  timings.push(`  ${label}: ${requests.length} requests in ${Date.now() - started} ms`);
  expect(requests.length).toBeGreaterThan(0);
  expect(failures.slice(0, 80), `${failures.length} of ${requests.length} requests failed`).toEqual([]);
  return statuses;
}

const JSON_TYPE = 'application/json';

/** Issue 22's oversized arrays and objects, from the body schema of the operation served at `url`. */
const sizeCases = (base: Record<string, unknown>, url: string) => {
  const op = Object.values(operations).find((o) => o.path === url) as { body?: unknown } | undefined;
  if (!op?.body) throw new Error(`no operation with a body at ${url}`);
  return sizeBodies(base, op.body, ['']);
};

function bodyRequests(
  endpoint: string,
  url: string,
  auth: Record<string, string>,
  cases: BodyCase[],
  method = 'POST',
): HostileRequest[] {
  return cases.map((c) => ({
    endpoint,
    name: c.name,
    method,
    url,
    headers: { ...auth, 'content-type': 'contentType' in c ? c.contentType : JSON_TYPE },
    body: c.body,
    mustRefuse: c.mustRefuse,
    ...(c.refusePath !== undefined && { refusePath: c.refusePath }),
    ...(c.isSizeAttack && { isSizeAttack: true }),
  }));
}

/**
 * A list's pageSize: any whole number from 1 is a page (above the list's maximum it is read as the
 * maximum), anything else is refused.
 */
function pageSizeCases(max: number): BodyCase[] {
  return [0, -1, 2.5, 1e308, max + 1, -0].map((n) => ({
    name: `/pageSize: ${n}`,
    body: JSON.stringify({ pageSize: n }),
    mustRefuse: !Number.isInteger(n) || n < 1,
  }));
}

// ---- POST /v1/send

function sendEnvelopeFields(domain: string): FieldSpec[] {
  return [
    { pointer: '/templateId', kind: 'exact', valid: 'login-code', limits: [100], extra: IDENTIFIER_ATTACKS },
    { pointer: '/to', kind: 'email', valid: 'jane@example.com', limits: [320, 254], extra: EMAIL_ATTACKS },
    { pointer: '/templateVersion', kind: 'exact', valid: 'v1', limits: [32], extra: IDENTIFIER_ATTACKS },
    {
      pointer: '/from',
      kind: 'email',
      valid: `notifications@${domain}`,
      limits: [320, 254],
      extra: EMAIL_ATTACKS,
    },
    { pointer: '/fromName', kind: 'name', valid: 'Acme Support', limits: [1000, 120], allowEmpty: true },
    {
      pointer: '/replyTo',
      kind: 'email',
      valid: 'support@example.com',
      limits: [320, 254],
      extra: EMAIL_ATTACKS,
    },
  ];
}

function sendCorpus(): HostileRequest[] {
  const domain = h.runtime.deps.config.MAILSVC_DEFAULT_SENDING_DOMAIN;
  const baseOf = (templateId: string) => ({
    templateId,
    to: 'jane@example.com',
    data: templateDataFields(templateId).data,
  });
  const login = baseOf('login-code');
  const cases: BodyCase[] = [
    ...fieldBodies(login, sendEnvelopeFields(domain)),
    ...wrongTypeBodies(login, '/data'),
    ...structuralBodies(login, '/data'),
    ...sizeCases(login, '/v1/send'),
    ...contentTypeBodies(login),
  ];
  // metadata: its values, its keys, its size (DESIGN.md §12)
  const withMeta = { ...login, metadata: { userId: 'u_4821', flow: 'reset' } };
  cases.push(
    ...fieldBodies(withMeta, [
      { pointer: '/metadata/userId', kind: 'metadata', valid: 'u_4821', limits: [256], allowEmpty: true },
    ]),
    ...wrongTypeBodies(withMeta, '/metadata'),
    ...wrongTypeBodies(withMeta, '/metadata/userId'),
    ...metadataKeyCases(login),
  );
  // scheduledAt: a time within the login code's hour of the harness clock; past, too far, malformed
  const scheduled = { ...login, scheduledAt: '2026-11-22T10:45:00Z' };
  cases.push(
    ...fieldBodies(scheduled, [
      {
        pointer: '/scheduledAt',
        kind: 'exact',
        valid: '2026-11-22T10:45:00Z',
        limits: [64],
        extra: [
          { name: 'in the past', value: '2026-11-22T09:00:00Z', mustRefuse: true },
          { name: 'past the login code’s hour', value: '2026-11-22T12:00:00Z', mustRefuse: true },
          { name: 'over 30 days ahead', value: '2027-01-01T00:00:00Z', mustRefuse: true },
          { name: 'no offset', value: '2026-11-22 10:45', mustRefuse: true },
        ],
      },
    ]),
    ...wrongTypeBodies(scheduled, '/scheduledAt'),
  );
  // Every distinct data field of the featured templates (the texts they share are covered once).
  const covered = new Set<string>();
  for (const templateId of FEATURED_TEMPLATES) {
    const t = templateDataFields(templateId, covered);
    cases.push(...fieldBodies(baseOf(templateId), t.fields));
    for (const o of t.objects) cases.push(...wrongTypeBodies(baseOf(templateId), o));
  }
  return bodyRequests('POST /v1/send', '/v1/send', bearer(s.apiKey), cases);
}

/** Metadata keys: letters, digits, _, . and -, 1 to 40 characters; at most 20 of them. */
function metadataKeyCases(base: Record<string, unknown>): BodyCase[] {
  const KEY = /^[A-Za-z0-9_.-]{1,40}$/;
  const keys = [
    '__proto__',
    'constructor',
    'toString',
    'a.b',
    '1st',
    '-',
    'a b',
    'a/b',
    '{{x}}',
    'ünïcode',
    '',
    'k'.repeat(40),
    'k'.repeat(41),
    'a\u202eb',
    'a\u200bb',
    'a\r\nb',
    "x' OR '1'='1",
  ];
  return [
    ...keys.map((key) => ({
      name: `/metadata key ${visible(JSON.stringify(key)).slice(0, 40)}`,
      body: JSON.stringify({ ...base, metadata: { [key]: 'v' } }),
      // __proto__ may be refused by the JSON reader before any rule: either answer is right
      mustRefuse: !KEY.test(key),
      ...(key === '__proto__' && { mustRefuse: false }),
    })),
    ...[20, 21].map((n) => ({
      name: `/metadata: ${n} keys`,
      body: JSON.stringify({
        ...base,
        metadata: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'.repeat(256)])),
      }),
      mustRefuse: n > 20,
    })),
  ];
}

describe('POST /v1/send', () => {
  it('answers every hostile body on POST /v1/send with a documented 4xx in the envelope (or accepts it when no rule refuses it)', async () => {
    const requests = sendCorpus();
    const statuses = await expectEveryAnswerDocumented('POST /v1/send bodies', requests);
    // The corpus reaches validation: most answers are the body's refusal, not the key's or a limit's.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(requests.length / 3);
    expect((statuses.get(401) ?? 0) + (statuses.get(429) ?? 0)).toBe(0);
    expect(acceptedIds.size).toBeGreaterThan(0);
  });
});

// ---- POST /v1/send/batch

/**
 * Every hostile send of the send corpus as the one item of a batch: the batch answers 200 (its
 * items are independent) or refuses the whole request for what is the request's own (its size,
 * media type, a string PostgreSQL cannot store), never 5xx; an item the send route must refuse is
 * refused in its result with a catalogue code and paths under /items/0.
 */
async function expectBatchItemsAnswered(): Promise<Map<string, number>> {
  const failures: string[] = [];
  const outcomes = new Map<string, number>();
  const requests = sendCorpus().filter(
    (r) => r.headers['content-type'] === JSON_TYPE && typeof r.body === 'string' && !r.isSizeAttack,
  );
  await runPool(requests, 8, async (r) => {
    const res = await h.request({
      method: 'POST',
      url: '/v1/send/batch',
      headers: { ...bearer(s.apiKey), 'content-type': JSON_TYPE },
      payload: `{"items":[${r.body as string}]}`,
    });
    const what = `${r.name}: ${res.statusCode} ${res.body.slice(0, 200)}`;
    if (res.statusCode >= 500) return void failures.push(what);
    if (res.statusCode !== 200) {
      const code = res.json().error?.code;
      if (
        !(code in errorCatalogue) ||
        errorCatalogue[code as keyof typeof errorCatalogue].status !== res.statusCode
      )
        failures.push(`undocumented: ${what}`);
      outcomes.set(`whole ${res.statusCode}`, (outcomes.get(`whole ${res.statusCode}`) ?? 0) + 1);
      return;
    }
    const result = res.json().results[0] as {
      status: string;
      messageId?: string;
      error?: { code: string; details?: { path: string }[] };
    };
    outcomes.set(result.status, (outcomes.get(result.status) ?? 0) + 1);
    if (result.status === 'accepted') {
      acceptedIds.add(result.messageId!);
      if (r.mustRefuse) failures.push(`accepted what a documented rule refuses: ${what}`);
      return;
    }
    const code = result.error?.code ?? '';
    if (!(code in errorCatalogue)) failures.push(`unknown code: ${what}`);
    if (result.error?.details?.some((d) => !d.path.startsWith('/items/0')))
      failures.push(`a path outside the item: ${what}`);
  });
  expect(failures.slice(0, 40), `${failures.length} of ${requests.length} batches failed`).toEqual([]);
  return outcomes;
}

describe('POST /v1/send/batch', () => {
  it('answers every hostile send as a batch item in its result (or refuses the request for its own faults), never 5xx', async () => {
    const outcomes = await expectBatchItemsAnswered();
    expect(outcomes.get('refused') ?? 0).toBeGreaterThan(100);
    expect(outcomes.get('accepted') ?? 0).toBeGreaterThan(0);
  });

  it('answers every hostile batch body with a documented 4xx', async () => {
    const base = { items: [{ templateId: 'login-code', to: 'jane@example.com', data: { code: '482913' } }] };
    const statuses = await expectEveryAnswerDocumented(
      'POST /v1/send/batch bodies',
      bodyRequests('POST /v1/send/batch', '/v1/send/batch', bearer(s.apiKey), [
        // an array of anything is a batch whose items are refused one by one (200)
        ...wrongTypeBodies(base, '/items').map((c) =>
          Array.isArray(JSON.parse(c.body as string).items) ? { ...c, mustRefuse: false } : c,
        ),
        { name: '/items: none', body: '{"items":[]}', mustRefuse: true },
        {
          name: '/items: 101',
          body: JSON.stringify({ items: Array.from({ length: 101 }, () => base.items[0]) }),
          mustRefuse: true,
        },
        ...structuralBodies(base, ''),
        ...sizeCases(base, '/v1/send/batch'),
        ...contentTypeBodies(base),
      ]),
    );
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(500) ?? 0).toBe(0);
  });
});

// ---- headers

const authVariants = (key: string): [string, string | string[] | undefined, boolean][] => [
  ['no Authorization', undefined, true],
  ['an empty Authorization', '', true],
  ['Bearer alone', 'Bearer', true],
  ['Bearer and a space', 'Bearer ', true],
  ['the key without a scheme', key, true],
  ['Basic with the key', `Basic ${Buffer.from(`${key}:`).toString('base64')}`, true],
  ['a 10 KB token', `Bearer ${'a'.repeat(10 * 1024)}`, true],
  ['a 10 KB key-shaped token', `Bearer msk_${'A'.repeat(26)}_${'s'.repeat(10 * 1024)}`, true],
  ['the key with a trailing character', `Bearer ${key}Q`, true],
  ['the key without its last character', `Bearer ${key.slice(0, -1)}`, true],
  ['the key twice', `Bearer ${key} ${key}`, true],
  ['the key with a NUL', `Bearer ${key}\u0000`, true],
  ['the key and a CRLF', `Bearer ${key}\r\nX-Admin: 1`, true],
  ['a non-ASCII key', 'Bearer msk_ключ_секрет', true],
  ['the key with a lone surrogate', `Bearer ${key}\ud800`, true],
  ['the admin token', `Bearer ${ADMIN_TOKEN}`, true],
  ['a JWT', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', true],
  ['SQL', "Bearer ' OR 1=1 --", true],
  ['msk_ alone', 'Bearer msk_', true],
  ['msk__', 'Bearer msk__', true],
  ['lowercase bearer', `bearer ${key}`, false],
  ['BEARER', `BEARER ${key}`, false],
  ['two spaces', `Bearer  ${key}`, false],
  ['a tab', `Bearer\t${key}`, false],
  ['a trailing space', `Bearer ${key} `, false],
  ['two Authorization headers', [`Bearer ${key}`, `Bearer ${key}`], false],
];

function headerCorpus(): HostileRequest[] {
  const out: HostileRequest[] = [];
  let n = 0;
  const sendBody = () =>
    JSON.stringify({ templateId: 'login-code', to: `headers-${++n}@example.com`, data: { code: '482913' } });
  for (const [name, value, mustRefuse] of authVariants(s.apiKey)) {
    out.push({
      endpoint: 'POST /v1/send',
      name: `Authorization: ${name}`,
      method: 'POST',
      url: '/v1/send',
      headers: { authorization: value, 'content-type': JSON_TYPE },
      body: sendBody(),
      mustRefuse,
    });
    out.push({
      endpoint: 'GET /v1/quota',
      name: `Authorization: ${name}`,
      method: 'GET',
      url: '/v1/quota',
      headers: { authorization: value },
      mustRefuse,
    });
  }
  out.push({
    endpoint: 'GET /v1/quota',
    name: 'the key in the query string',
    method: 'GET',
    url: `/v1/quota?api_key=${encodeURIComponent(s.apiKey)}&authorization=${encodeURIComponent(`Bearer ${s.apiKey}`)}`,
    headers: {},
    mustRefuse: true,
  });
  const idempotencyKeys: [string, string | string[], boolean][] = [
    ['121 characters', 'k'.repeat(121), true],
    ['10 KB', 'k'.repeat(10 * 1024), true],
    ['non-ASCII', 'ключ-1', true],
    ['a CR', 'a\rb', true],
    ['a CRLF', 'a\r\nBcc: evil@example.com', true],
    ['a NUL', 'a\u0000b', true],
    ['a space', 'a b', true],
    ['empty', '', true],
    ['a lone surrogate', 'a\ud800', true],
    ['a bidi override', 'a\u202eb', true],
    ['120 characters', 'h'.repeat(120), false],
    ['two headers', ['hostile-two-a', 'hostile-two-b'], false],
  ];
  for (const [name, value, mustRefuse] of idempotencyKeys)
    out.push({
      endpoint: 'POST /v1/send',
      name: `Idempotency-Key: ${name}`,
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(s.apiKey), 'content-type': JSON_TYPE, 'idempotency-key': value },
      body: sendBody(),
      mustRefuse,
    });
  const huge: [string, Record<string, string>][] = [
    [
      '200 extra headers',
      Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`x-h-${i}`, 'a'.repeat(50)])),
    ],
    ['a 15 KB cookie', { cookie: `s=${'c'.repeat(15 * 1024)}` }],
    ['a 1 MB header', { 'x-big': 'b'.repeat(1024 * 1024) }],
    [
      'a 10 KB X-Forwarded-For',
      { 'x-forwarded-for': Array.from({ length: 700 }, () => '203.0.113.9').join(', ') },
    ],
    ['a client X-Request-Id with a CRLF', { 'x-request-id': 'evil\r\nSet-Cookie: x=y' }],
    ['a 10 KB Host', { host: `${'h'.repeat(10 * 1024)}.example` }],
    ['a Host with a CRLF', { host: 'x\r\nX-Injected: 1' }],
    ['a Content-Length shorter than the body', { 'content-length': '1' }],
    ['a Content-Length longer than the body', { 'content-length': '100' }],
    ['a negative Content-Length', { 'content-length': '-1' }],
    ['Transfer-Encoding: chunked', { 'transfer-encoding': 'chunked' }],
    ['X-HTTP-Method-Override: DELETE', { 'x-http-method-override': 'DELETE' }],
  ];
  for (const [name, headers] of huge) {
    out.push({
      endpoint: 'POST /v1/send',
      name,
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(s.apiKey), 'content-type': JSON_TYPE, ...headers },
      body: sendBody(),
    });
    out.push({
      endpoint: 'GET /healthz',
      name,
      method: 'GET',
      url: '/healthz',
      headers: Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'content-length')),
    });
  }
  return out;
}

// ---- recipients and messages

const SCOPE_ATTACKS: Variant[] = [
  { name: 'another scope', value: 'marketing', mustRefuse: true },
  { name: 'scope in capitals', value: 'APP_NOTIFICATIONS', mustRefuse: true },
];

/** A hostile-body corpus per built /v1 operation besides send: its fields, wrong types, structure. */
function lookupCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const messageId = [...acceptedIds][0] ?? 'msg_01M81C1XJB7Y4KHB01G4B1P0M5';
  const email: FieldSpec = {
    pointer: '/email',
    kind: 'email',
    valid: 'jane@example.com',
    limits: [320, 254],
    extra: EMAIL_ATTACKS,
  };
  const specs: {
    endpoint: string;
    url: string;
    base: Record<string, unknown>;
    fields: FieldSpec[];
    typed: string[];
  }[] = [
    {
      endpoint: 'POST /v1/recipients/status',
      url: '/v1/recipients/status',
      base: { email: 'jane@example.com', limit: 5 },
      fields: [email],
      typed: ['/email'],
    },
    {
      endpoint: 'POST /v1/recipients/resubscribe',
      url: '/v1/recipients/resubscribe',
      base: { email: 'jane@example.com', scope: 'app_notifications' },
      fields: [
        email,
        {
          pointer: '/scope',
          kind: 'exact',
          valid: 'app_notifications',
          limits: [100],
          extra: SCOPE_ATTACKS,
        },
      ],
      typed: ['/scope'],
    },
    {
      endpoint: 'POST /v1/messages/get',
      url: '/v1/messages/get',
      base: { messageId },
      fields: [
        {
          pointer: '/messageId',
          kind: 'exact',
          valid: messageId,
          limits: [64],
          extra: IDENTIFIER_ATTACKS,
        } as const,
      ],
      typed: ['/messageId'],
    },
    {
      endpoint: 'POST /v1/messages/cancel',
      url: '/v1/messages/cancel',
      base: { messageId },
      fields: [
        { pointer: '/messageId', kind: 'exact', valid: messageId, limits: [64], extra: IDENTIFIER_ATTACKS },
      ],
      typed: ['/messageId'],
    },
    {
      endpoint: 'POST /v1/messages/reschedule',
      url: '/v1/messages/reschedule',
      base: { messageId, scheduledAt: '2026-11-22T10:45:00Z' },
      fields: [
        { pointer: '/messageId', kind: 'exact', valid: messageId, limits: [64], extra: IDENTIFIER_ATTACKS },
        {
          pointer: '/scheduledAt',
          kind: 'exact',
          valid: '2026-11-22T10:45:00Z',
          limits: [64],
          extra: [
            { name: 'in the past', value: '2026-11-22T09:00:00Z', mustRefuse: true },
            { name: 'over 30 days ahead', value: '2027-01-01T00:00:00Z', mustRefuse: true },
            { name: 'no offset', value: '2026-11-22 10:45', mustRefuse: true },
            { name: 'the end of time', value: '9999-12-31T23:59:59Z', mustRefuse: true },
          ],
        },
      ],
      typed: ['/messageId', '/scheduledAt'],
    },
  ];
  // limit is a number: any number is clamped to 1–50 (seed), anything else refused.
  const limitBase = { email: 'jane@example.com', limit: 5 };
  const limitCases: BodyCase[] = [
    ...wrongTypeBodies(limitBase, '/limit').filter((c) => !/number/.test(c.name)),
    ...[0, -1, 1e308, 2.5, 51, -0].map((n) => ({
      name: `/limit: ${n}`,
      body: JSON.stringify({ ...limitBase, limit: n }),
      mustRefuse: false,
    })),
  ];
  return specs.map((spec) => ({
    endpoint: spec.endpoint,
    url: spec.url,
    requests: bodyRequests(spec.endpoint, spec.url, bearer(s.apiKey), [
      ...(spec.url === '/v1/recipients/status' ? limitCases : []),
      ...fieldBodies(spec.base, [...spec.fields]),
      ...spec.typed.flatMap((pointer) => wrongTypeBodies(spec.base, pointer)),
      ...structuralBodies(spec.base, spec.typed[0]!),
      ...sizeCases(spec.base, spec.url),
      ...contentTypeBodies(spec.base),
    ]),
  }));
}

// ---- the message list

/** POST /v1/messages/list: every filter, the cursor, the page size. */
function messageListCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const base = {
    status: ['queued', 'sent'],
    templateId: 'login-code',
    to: 'jane@example.com',
    createdAfter: '2026-11-01T00:00:00Z',
    createdBefore: '2026-12-01T00:00:00.000+01:00',
    metadata: { userId: 'u_4821' },
    bulkJobId: 'job_01M81C1XJB7Y4KHB01G4B1P0M5',
    pageSize: 10,
  };
  // A cursor this environment answered for no filters: any change to it is refused.
  const cursor = signCursor(
    h.runtime.deps.keys.listCursor,
    messageListBinding(s.environmentId, toFilter({})),
    'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
    h.clock.now(),
  );
  const timestamp = (pointer: string): FieldSpec => ({
    pointer,
    kind: 'exact',
    valid: '2026-11-01T00:00:00Z',
    limits: [40],
    extra: TIMESTAMP_ATTACKS,
  });
  const metadataCases: BodyCase[] = [
    { name: '/metadata: {}', body: JSON.stringify({ metadata: {} }), mustRefuse: true },
    {
      name: '/metadata: 4 pairs',
      body: JSON.stringify({ metadata: { a: '1', b: '2', c: '3', d: '4' } }),
      mustRefuse: true,
    },
    ...metadataKeyCases({}).filter((c) => !c.name.includes('keys')),
  ];
  const statusCases: BodyCase[] = (
    [
      ['none', [], true],
      [
        'every status',
        [
          'queued',
          'sending',
          'deferred',
          'sent',
          'delivered',
          'bounced',
          'failed',
          'suppressed',
          'expired',
          'complained',
          'canceled',
        ],
        false,
      ],
      ['twice the same', ['sent', 'sent'], true],
      ['12 statuses', Array.from({ length: 12 }, (_, i) => `s${i}`), true],
      ['upper case', ['SENT'], true],
      ['a string', 'sent', true],
    ] as [string, unknown, boolean][]
  ).map(([name, status, mustRefuse]) => ({
    name: `/status: ${name}`,
    body: JSON.stringify({ status }),
    mustRefuse,
  }));
  const cases: BodyCase[] = [
    ...fieldBodies(base, [
      { pointer: '/status/0', kind: 'exact', valid: 'queued', limits: [20], extra: IDENTIFIER_ATTACKS },
      // any other template id is a filter that matches nothing
      { pointer: '/templateId', kind: 'text', valid: 'login-code', limits: [100] },
      { pointer: '/to', kind: 'email', valid: 'jane@example.com', limits: [320, 254], extra: EMAIL_ATTACKS },
      timestamp('/createdAfter'),
      timestamp('/createdBefore'),
      { pointer: '/metadata/userId', kind: 'metadata', valid: 'u_4821', limits: [256], allowEmpty: true },
      {
        pointer: '/bulkJobId',
        kind: 'exact',
        valid: 'job_01M81C1XJB7Y4KHB01G4B1P0M5',
        limits: [30],
        extra: IDENTIFIER_ATTACKS,
      },
    ]),
    // null is the first page's cursor
    ...accepting(
      fieldBodies({ cursor }, [
        { pointer: '/cursor', kind: 'exact', valid: cursor, limits: [300], extra: IDENTIFIER_ATTACKS },
      ]),
      ['/cursor: null'],
    ),
    ...['/status', '/templateId', '/to', '/createdAfter', '/metadata', '/bulkJobId', '/cursor'].flatMap((p) =>
      wrongTypeBodies(base, p).filter((c) => !(p === '/cursor' && /null/.test(c.name))),
    ),
    ...statusCases,
    ...metadataCases,
    ...pageSizeCases(100),
    ...structuralBodies(base, ''),
    ...sizeCases(base, '/v1/messages/list'),
    ...contentTypeBodies(base),
  ];
  return [
    {
      endpoint: 'POST /v1/messages/list',
      url: '/v1/messages/list',
      requests: bodyRequests('POST /v1/messages/list', '/v1/messages/list', bearer(s.apiKey), cases),
    },
  ];
}

// ---- API keys

/** POST /v1/keys/create, list, revoke: scope, categories, name, key id. */
function keyCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const create = { scope: 'send', templateCategories: ['security'], name: 'hostile corpus key' };
  const createCases: BodyCase[] = [
    ...fieldBodies(create, [
      { pointer: '/scope', kind: 'exact', valid: 'send', limits: [10], extra: IDENTIFIER_ATTACKS },
      {
        pointer: '/templateCategories/0',
        kind: 'exact',
        valid: 'security',
        limits: [20],
        extra: IDENTIFIER_ATTACKS,
      },
      { pointer: '/name', kind: 'name', valid: 'hostile corpus key', limits: [100] },
    ]),
    ...['/scope', '/templateCategories', '/name'].flatMap((p) => wrongTypeBodies(create, p)),
    {
      name: '/templateCategories on a full key',
      body: JSON.stringify({ scope: 'full', templateCategories: ['security'] }),
      mustRefuse: true,
    },
    {
      name: '/templateCategories: none',
      body: JSON.stringify({ scope: 'send', templateCategories: [] }),
      mustRefuse: true,
    },
    {
      name: '/templateCategories: twice the same',
      body: JSON.stringify({ scope: 'send', templateCategories: ['security', 'security'] }),
      mustRefuse: true,
    },
    { name: '/scope: full', body: JSON.stringify({ scope: 'full' }), mustRefuse: false },
    ...structuralBodies(create, ''),
    ...sizeCases(create, '/v1/keys/create'),
    ...contentTypeBodies(create),
  ];
  // another environment's key: never found from this one
  const revoke = { keyId: sac.keyId };
  const revokeCases: BodyCase[] = [
    ...fieldBodies(revoke, [
      { pointer: '/keyId', kind: 'exact', valid: sac.keyId, limits: [30], extra: IDENTIFIER_ATTACKS },
    ]),
    ...wrongTypeBodies(revoke, '/keyId'),
    ...structuralBodies(revoke, ''),
    ...sizeCases(revoke, '/v1/keys/revoke'),
    ...contentTypeBodies(revoke),
  ];
  const listCases: BodyCase[] = [
    { name: 'an empty object', body: '{}', mustRefuse: false },
    ...structuralBodies({}, ''),
    ...sizeCases({}, '/v1/keys/list'),
    ...contentTypeBodies({}),
  ];
  return (
    [
      ['POST /v1/keys/create', '/v1/keys/create', createCases],
      ['POST /v1/keys/list', '/v1/keys/list', listCases],
      ['POST /v1/keys/revoke', '/v1/keys/revoke', revokeCases],
    ] as const
  ).map(([endpoint, url, cases]) => ({
    endpoint,
    url,
    requests: bodyRequests(endpoint, url, bearer(s.apiKey), cases),
  }));
}

/** POST /v1/audit/list: actions, times, page size, cursor. */
function auditCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const base = {
    action: ['api_key.created'],
    createdAfter: '2026-11-01T00:00:00Z',
    createdBefore: '2026-12-01T00:00:00Z',
    pageSize: 10,
  };
  const cases: BodyCase[] = [
    ...fieldBodies(base, [
      // any other action name of the right shape is a filter that matches nothing
      {
        pointer: '/action/0',
        kind: 'exact',
        valid: 'api_key.created',
        limits: [64],
        extra: IDENTIFIER_ATTACKS,
      },
      {
        pointer: '/createdAfter',
        kind: 'exact',
        valid: '2026-11-01T00:00:00Z',
        limits: [40],
        extra: TIMESTAMP_ATTACKS,
      },
      { pointer: '/cursor', kind: 'exact', valid: 'x', limits: [300], extra: IDENTIFIER_ATTACKS },
    ]).filter((c) => !c.name.startsWith('/cursor: null') && !c.name.startsWith('/cursor: x')),
    ...['/action', '/createdAfter', '/createdBefore'].flatMap((p) => wrongTypeBodies(base, p)),
    { name: '/action: none', body: JSON.stringify({ action: [] }), mustRefuse: true },
    {
      name: '/action: 21',
      body: JSON.stringify({ action: Array.from({ length: 21 }, (_, i) => `a.b${'x'.repeat(i)}`) }),
      mustRefuse: true,
    },
    ...pageSizeCases(100),
    ...structuralBodies(base, ''),
    ...sizeCases(base, '/v1/audit/list'),
    ...contentTypeBodies(base),
  ];
  return [
    {
      endpoint: 'POST /v1/audit/list',
      url: '/v1/audit/list',
      requests: bodyRequests('POST /v1/audit/list', '/v1/audit/list', bearer(s.apiKey), cases),
    },
  ];
}

/** POST /v1/stats/daily: days, a whole number from 1 to 90. */
function statsCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const base = { days: 30 };
  const days = [0, -1, 1, 90, 91, 2.5, 1e308, -0, 30.0000001].map((n) => ({
    name: `/days: ${n}`,
    body: JSON.stringify({ days: n }),
    mustRefuse: !Number.isInteger(n) || n < 1 || n > 90,
  }));
  // (a number is the right type here: the corpus's "a number" cases are days cases)
  const cases: BodyCase[] = [
    ...days,
    ...wrongTypeBodies(base, '/days').filter((c) => !c.name.endsWith('a number')),
    { name: 'no fields', body: '{}', mustRefuse: false },
    ...structuralBodies(base, '').filter((c) => !c.name.endsWith('a number')),
    ...sizeCases(base, '/v1/stats/daily'),
    ...contentTypeBodies(base),
  ];
  return [
    {
      endpoint: 'POST /v1/stats/daily',
      url: '/v1/stats/daily',
      requests: bodyRequests('POST /v1/stats/daily', '/v1/stats/daily', bearer(s.apiKey), cases),
    },
  ];
}

/** POST /v1/templates/list: an optional category. */
function templateListCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const base = { category: 'security' };
  const cases: BodyCase[] = [
    ...fieldBodies(base, [
      { pointer: '/category', kind: 'exact', valid: 'security', limits: [20], extra: IDENTIFIER_ATTACKS },
    ]),
    ...wrongTypeBodies(base, '/category'),
    { name: 'no fields', body: '{}', mustRefuse: false },
    ...structuralBodies(base, ''),
    ...sizeCases(base, '/v1/templates/list'),
    ...contentTypeBodies(base),
  ];
  return [
    {
      endpoint: 'POST /v1/templates/list',
      url: '/v1/templates/list',
      requests: bodyRequests('POST /v1/templates/list', '/v1/templates/list', bearer(s.apiKey), cases),
    },
  ];
}

describe('the template list', () => {
  it('answers every hostile body on /v1/templates/list with a documented 4xx (or the list when no rule refuses it)', async () => {
    for (const corpus of templateListCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(200) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
  });
});

describe('daily stats', () => {
  it('answers every hostile body on /v1/stats/daily with a documented 4xx (or its days when no rule refuses it)', async () => {
    for (const corpus of statsCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(200) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
  });
});

// ---- suppressions

/** POST /v1/suppressions/list, add, remove: reasons, times, addresses, notes, cursor. */
function suppressionCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const email: FieldSpec = {
    pointer: '/email',
    kind: 'email',
    valid: 'hostile-suppressed@example.com',
    limits: [320, 254],
    extra: EMAIL_ATTACKS,
  };
  const listBase = {
    reason: ['manual', 'hard_bounce'],
    createdAfter: '2026-11-01T00:00:00Z',
    createdBefore: '2026-12-01T00:00:00Z',
    pageSize: 10,
  };
  const listCases: BodyCase[] = [
    ...fieldBodies(listBase, [
      { pointer: '/reason/0', kind: 'exact', valid: 'manual', limits: [20], extra: IDENTIFIER_ATTACKS },
      { pointer: '/createdAfter', kind: 'exact', valid: '2026-11-01T00:00:00Z', limits: [40] },
      { pointer: '/createdBefore', kind: 'exact', valid: '2026-12-01T00:00:00Z', limits: [40] },
    ]),
    ...['/reason', '/createdAfter'].flatMap((p) => wrongTypeBodies(listBase, p)),
    ...wrongTypeBodies(listBase, '/pageSize').filter((c) => !/number/.test(c.name)),
    ...wrongTypeBodies(listBase, '/cursor').filter((c) => !/null/.test(c.name)),
    {
      name: '/cursor: made by hand',
      body: JSON.stringify({ cursor: 'MTc2NDAwMDAwMDAwMHxtYW51YWx8YUBiLmM.AAAAAAAAAAAAAAAAAAAAAA' }),
      mustRefuse: true,
    },
    {
      name: '/reason: twice the same',
      body: JSON.stringify({ reason: ['manual', 'manual'] }),
      mustRefuse: true,
    },
    ...pageSizeCases(100),
    ...structuralBodies(listBase, ''),
    ...sizeCases(listBase, '/v1/suppressions/list'),
    ...contentTypeBodies(listBase),
  ];
  const addBase = {
    email: 'hostile-suppressed@example.com',
    until: '2027-01-01T00:00:00Z',
    note: 'hostile corpus',
  };
  const addCases: BodyCase[] = [
    ...fieldBodies(addBase, [
      email,
      {
        pointer: '/until',
        kind: 'exact',
        valid: '2027-01-01T00:00:00Z',
        limits: [64],
        extra: [
          { name: 'in the past', value: '2026-01-01T00:00:00Z', mustRefuse: true },
          { name: 'no offset', value: '2027-01-01 00:00', mustRefuse: true },
        ],
      },
      { pointer: '/note', kind: 'metadata', valid: 'hostile corpus', limits: [500] },
    ]),
    ...['/email', '/until', '/note'].flatMap((p) => wrongTypeBodies(addBase, p)),
    ...structuralBodies(addBase, ''),
    ...sizeCases(addBase, '/v1/suppressions/add'),
    ...contentTypeBodies(addBase),
  ];
  const removeBase = { email: 'hostile-suppressed@example.com', reason: 'manual' };
  const removeCases: BodyCase[] = [
    ...fieldBodies(removeBase, [
      email,
      { pointer: '/reason', kind: 'exact', valid: 'manual', limits: [20], extra: IDENTIFIER_ATTACKS },
    ]),
    ...['/email', '/reason'].flatMap((p) => wrongTypeBodies(removeBase, p)),
    ...structuralBodies(removeBase, ''),
    ...sizeCases(removeBase, '/v1/suppressions/remove'),
    ...contentTypeBodies(removeBase),
  ];
  return (
    [
      ['POST /v1/suppressions/list', '/v1/suppressions/list', listCases],
      ['POST /v1/suppressions/add', '/v1/suppressions/add', addCases],
      ['POST /v1/suppressions/remove', '/v1/suppressions/remove', removeCases],
    ] as const
  ).map(([endpoint, url, cases]) => ({
    endpoint,
    url,
    requests: bodyRequests(endpoint, url, bearer(s.apiKey), cases),
  }));
}

// ---- webhooks

/** Private, loopback and transition forms of addresses a webhook must never be sent to (issue 27, item 6). */
const SSRF_URLS: Variant[] = [
  'https://127.0.0.1/hook',
  'http://127.0.0.1/hook',
  'https://[::1]/hook',
  'http://[::ffff:127.0.0.1]',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://2130706433/hook',
  'https://0177.0.0.1/hook',
  'https://0x7f.0.0.1/hook',
  'https://0x7f000001/hook',
  'https://127.1/hook',
  'https://10.0.0.1/hook',
  'https://172.16.0.1/hook',
  'https://192.168.1.1/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://100.64.0.1/hook',
  'https://100.100.100.200/latest/meta-data/',
  'https://[fd00:ec2::254]/latest/meta-data/',
  'https://[fe80::1]/hook',
  'https://224.0.0.1/hook',
  'https://0.0.0.0/hook',
  'https://[::]/hook',
  'https://[64:ff9b::7f00:1]/hook',
  'https://[2002:7f00:1::]/hook',
  'https://[2001::1]/hook',
  'https://localhost/hook',
  'https://localhost./hook',
  'https://app.localhost/hook',
  'https://metadata.google.internal/computeMetadata/v1/',
  'http://hooks.example.com/plain-http',
  'https://hooks.example.com/with#fragment',
].map((value) => ({ name: `SSRF ${value}`, value, mustRefuse: true }));

const ENDPOINT_ID = 'whe_01JD0000000000000000000000';

/** POST /v1/webhooks/*: URLs (every SSRF form), event types, ids, the attempt list's filters and cursor. */
function webhookCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const url: FieldSpec = {
    pointer: '/url',
    kind: 'url',
    valid: 'https://hooks.example.com/mailsvc',
    limits: [2048],
    extra: [...URL_ATTACKS, ...SSRF_URLS],
  };
  const id: FieldSpec = {
    pointer: '/endpointId',
    kind: 'exact',
    valid: ENDPOINT_ID,
    limits: [64],
    extra: IDENTIFIER_ATTACKS,
  };
  const eventType = (pointer: string): FieldSpec => ({
    pointer,
    kind: 'exact',
    valid: 'message.bounced',
    limits: [40],
    extra: IDENTIFIER_ATTACKS,
  });
  const createBase = {
    url: 'https://hooks.example.com/mailsvc',
    events: ['message.bounced'],
    description: 'hostile corpus',
    enabled: false,
  };
  const updateBase = { endpointId: ENDPOINT_ID, ...createBase };
  const idBase = { endpointId: ENDPOINT_ID };
  const listBase = {
    endpointId: ENDPOINT_ID,
    eventType: 'message.sent',
    outcome: 'failed',
    createdAfter: '2026-11-01T00:00:00Z',
    createdBefore: '2026-12-01T00:00:00Z',
    pageSize: 10,
  };
  const replayBase = { endpointId: ENDPOINT_ID, createdAfter: '2026-11-01T00:00:00Z' };
  const common = (base: Record<string, unknown>, path: string) => [
    ...structuralBodies(base, ''),
    ...sizeCases(base, path),
    ...contentTypeBodies(base),
  ];
  const endpointFields = (base: Record<string, unknown>) => [
    ...fieldBodies(base, [
      url,
      eventType('/events/0'),
      { pointer: '/description', kind: 'metadata', valid: 'hostile corpus', limits: [200], allowEmpty: true },
    ]),
    ...['/url', '/description'].flatMap((p) => wrongTypeBodies(base, p)),
    // null: every type
    ...wrongTypeBodies(base, '/events').filter((c) => !/null/.test(c.name)),
    ...wrongTypeBodies(base, '/enabled').filter((c) => !/boolean/.test(c.name)),
    // an integer cap, or null (no cap)
    ...wrongTypeBodies(base, '/rateLimitPerSecond').filter((c) => !/number|null/.test(c.name)),
    ...[0, -1, 2.5, 1001, 1e308, '5'].map((n) => ({
      name: `/rateLimitPerSecond: ${JSON.stringify(n)}`,
      body: JSON.stringify({ ...base, rateLimitPerSecond: n }),
      mustRefuse: true,
    })),
    {
      name: '/events: twice the same',
      body: JSON.stringify({ ...base, events: ['message.sent', 'message.sent'] }),
      mustRefuse: true,
    },
    { name: '/events: empty', body: JSON.stringify({ ...base, events: [] }), mustRefuse: true },
  ];
  const corpora: [string, BodyCase[]][] = [
    ['/v1/webhooks/create', [...endpointFields(createBase), ...common(createBase, '/v1/webhooks/create')]],
    ['/v1/webhooks/list', common({}, '/v1/webhooks/list')],
    [
      '/v1/webhooks/update',
      [
        ...endpointFields(updateBase),
        ...fieldBodies(updateBase, [id]),
        ...common(updateBase, '/v1/webhooks/update'),
      ],
    ],
    ...['get', 'delete', 'rotate-secret', 'test'].map((op): [string, BodyCase[]] => [
      `/v1/webhooks/${op}`,
      [
        ...fieldBodies(idBase, [id]),
        ...wrongTypeBodies(idBase, '/endpointId'),
        ...common(idBase, `/v1/webhooks/${op}`),
      ],
    ]),
    [
      '/v1/webhooks/deliveries/list',
      [
        ...fieldBodies(listBase, [
          id,
          eventType('/eventType'),
          { pointer: '/outcome', kind: 'exact', valid: 'failed', limits: [20], extra: IDENTIFIER_ATTACKS },
          { pointer: '/createdAfter', kind: 'exact', valid: '2026-11-01T00:00:00Z', limits: [40] },
          // a filter: any other id is a message with no events
          { pointer: '/messageId', kind: 'text', valid: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5', limits: [64] },
        ]),
        ...['/eventType', '/outcome', '/createdAfter', '/messageId'].flatMap((p) =>
          wrongTypeBodies(listBase, p),
        ),
        ...wrongTypeBodies(listBase, '/cursor').filter((c) => !/null/.test(c.name)),
        {
          name: '/cursor: made by hand',
          body: JSON.stringify({ cursor: 'd2hhXzAxSkQ.AAAAAAAAAAAAAAAAAAAAAA' }),
          mustRefuse: true,
        },
        ...pageSizeCases(100),
        ...common(listBase, '/v1/webhooks/deliveries/list'),
      ],
    ],
    [
      '/v1/webhooks/deliveries/replay',
      [
        ...fieldBodies(replayBase, [
          id,
          { pointer: '/createdAfter', kind: 'exact', valid: '2026-11-01T00:00:00Z', limits: [40] },
        ]),
        ...fieldBodies({ eventId: 'evt_01JD0000000000000000000000' }, [
          {
            pointer: '/eventId',
            kind: 'exact',
            valid: 'evt_01JD0000000000000000000000',
            limits: [64],
            extra: IDENTIFIER_ATTACKS,
          },
        ]),
        {
          name: 'neither an event nor an endpoint',
          body: JSON.stringify({ createdAfter: '2026-11-01T00:00:00Z' }),
          mustRefuse: true,
        },
        ...common(replayBase, '/v1/webhooks/deliveries/replay'),
      ],
    ],
  ];
  return corpora.map(([path, cases]) => ({
    endpoint: `POST ${path}`,
    url: path,
    requests: bodyRequests(`POST ${path}`, path, bearer(s.apiKey), cases),
  }));
}

// ---- domains

const DOMAIN_ID = 'dom_01JD0000000000000000000000';

/** POST /v1/domains/*: names (every hostile character, the service's own), scopes, ids. */
function domainCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const name: FieldSpec = {
    pointer: '/domain',
    kind: 'domain',
    valid: 'hostile-api.example.com',
    limits: [253],
    extra: [
      {
        name: 'the service’s default domain',
        value: h.runtime.deps.config.MAILSVC_DEFAULT_SENDING_DOMAIN,
        mustRefuse: true,
      },
      { name: 'a single label', value: 'localhost', mustRefuse: true },
      { name: 'an IP address', value: '127.0.0.1', mustRefuse: true },
      { name: 'a label over 63', value: `${'a'.repeat(64)}.example.com`, mustRefuse: true },
      { name: 'a leading dot', value: '.example.com', mustRefuse: true },
      { name: 'a URL', value: 'https://example.com/', mustRefuse: true },
      { name: 'an address', value: 'a@example.com', mustRefuse: true },
    ],
  };
  const scope: FieldSpec = {
    pointer: '/scope',
    kind: 'exact',
    valid: 'project',
    limits: [20],
    extra: IDENTIFIER_ATTACKS,
  };
  const id: FieldSpec = {
    pointer: '/domainId',
    kind: 'exact',
    valid: DOMAIN_ID,
    limits: [64],
    extra: IDENTIFIER_ATTACKS,
  };
  const addBase = { domain: 'hostile-api.example.com', scope: 'project' };
  const idBase = { domainId: DOMAIN_ID };
  const common = (base: Record<string, unknown>, path: string) => [
    ...structuralBodies(base, ''),
    ...sizeCases(base, path),
    ...contentTypeBodies(base),
  ];
  const corpora: [string, BodyCase[]][] = [
    [
      '/v1/domains/add',
      [
        ...fieldBodies(addBase, [name, scope]),
        ...['/domain', '/scope'].flatMap((p) => wrongTypeBodies(addBase, p)),
        ...common(addBase, '/v1/domains/add'),
      ],
    ],
    ['/v1/domains/list', common({}, '/v1/domains/list')],
    ...['get', 'verify', 'rotate-dkim', 'delete'].map((op): [string, BodyCase[]] => [
      `/v1/domains/${op}`,
      [
        ...fieldBodies(idBase, [id]),
        ...wrongTypeBodies(idBase, '/domainId'),
        ...common(idBase, `/v1/domains/${op}`),
      ],
    ]),
  ];
  return corpora.map(([path, cases]) => ({
    endpoint: `POST ${path}`,
    url: path,
    requests: bodyRequests(`POST ${path}`, path, bearer(s.apiKey), cases),
  }));
}

describe('domains', () => {
  it('answers every hostile body on /v1/domains/* with a documented 4xx (or its answer when no rule refuses it); every stored name is a plain domain', async () => {
    for (const corpus of domainCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
    const names = await h.runtime.deps.db
      .selectFrom('sending_domains')
      .select('domain')
      .where('tenant_id', '=', s.tenantId)
      .execute();
    for (const { domain } of names) expect(domain, domain).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
    // a pending domain of the project would refuse the later tests' sends
    await h.runtime.deps.db.deleteFrom('sending_domains').where('tenant_id', '=', s.tenantId).execute();
  });
});

describe('webhooks', () => {
  it('answers every hostile body on /v1/webhooks/* with a documented 4xx, every private or transition address refused (or its answer when no rule refuses it)', async () => {
    for (const corpus of webhookCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
    // no endpoint was made for a refused URL: every stored URL passes the rule again
    const urls = await h.runtime.deps.db.selectFrom('webhook_endpoints').select('url').execute();
    for (const { url } of urls) expect(url, url).toMatch(/^https:\/\/(app|hooks)\.example\.com\//);
  });
});

describe('suppressions', () => {
  it('answers every hostile body on /v1/suppressions/* with a documented 4xx (or its answer when no rule refuses it)', async () => {
    for (const corpus of suppressionCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
  });
});

describe('the audit list', () => {
  it('answers every hostile body on /v1/audit/list with a documented 4xx (or a page when no rule refuses it)', async () => {
    for (const corpus of auditCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(200) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
  });
});

describe('API keys', () => {
  it('answers every hostile body on /v1/keys/* with a documented 4xx (or its answer when no rule refuses it)', async () => {
    for (const corpus of keyCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
    // the corpus's key is intact: it still sends
    const res = await h.request({
      method: 'GET',
      url: '/v1/quota',
      headers: bearer(s.apiKey),
    });
    expect(res.statusCode).toBe(200);
  });
});

describe('the message list', () => {
  it('answers every hostile body on /v1/messages/list with a documented 4xx (or a page when no rule refuses it)', async () => {
    for (const corpus of messageListCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(200) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
  });
});

// ---- contacts

/** Cases whose value a contacts rule accepts although the generic corpus expects a refusal. */
const accepting = (cases: BodyCase[], names: string[]) =>
  cases.map((c) => (names.some((n) => c.name.endsWith(n)) ? { ...c, mustRefuse: false } : c));

/** POST /v1/contacts/{upsert,upsert-many,get,list}: every field, custom field keys, filters, pages. */
function contactCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const contact = {
    email: 'jane@example.com',
    name: 'Jane Doe',
    groupSlugs: ['hostile-contacts'],
    customFields: { company: 'Acme', seats: 3, trial: true },
  };
  const slug = (pointer: string): FieldSpec => ({
    pointer,
    kind: 'exact',
    valid: 'hostile-contacts',
    limits: [63],
    extra: GROUP_SLUG_ATTACKS,
  });
  const contactFields = (at: string): FieldSpec[] => [
    {
      pointer: `${at}/email`,
      kind: 'email',
      valid: 'jane@example.com',
      limits: [320, 254],
      extra: EMAIL_ATTACKS,
    },
    { pointer: `${at}/name`, kind: 'name', valid: 'Jane Doe', limits: [200] },
    slug(`${at}/groupSlugs/0`),
    { pointer: `${at}/customFields/company`, kind: 'text', valid: 'Acme', limits: [1000], allowEmpty: true },
  ];
  // null clears a name; a custom field is a string, number, boolean or null; [] and ['x'] are groups.
  const upsertCases = (base: unknown, at: string): BodyCase[] =>
    accepting(
      [
        ...fieldBodies(base, contactFields(at)),
        ...[`${at}/email`, `${at}/name`, `${at}/groupSlugs`, `${at}/customFields`].flatMap((p) =>
          wrongTypeBodies(base, p),
        ),
      ],
      [
        '/name: null',
        '/customFields/company: a number',
        '/customFields/company: a boolean',
        '/customFields/company: null',
        '/groupSlugs: an empty array',
        '/groupSlugs: an array of strings',
      ],
    );
  const KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
  const keyCases: BodyCase[] = [
    'constructor',
    'toString',
    'hasOwnProperty',
    '1st',
    'first name',
    'a.b',
    'a/b',
    '{{x}}',
    'ünïcode',
    '',
    '_',
    'k'.repeat(64),
    'k'.repeat(65),
    'a\u202eb',
    'a\u200bb',
    'a\r\nb',
  ].map((key) => ({
    name: `/customFields key ${visible(JSON.stringify(key)).slice(0, 40)}`,
    body: JSON.stringify({ ...contact, customFields: { [key]: 'v' } }),
    mustRefuse: !KEY.test(key),
  }));
  const fieldCountCases: BodyCase[] = [50, 51].map((n) => ({
    name: `/customFields: ${n} keys`,
    body: JSON.stringify({
      email: `fields-${n}@example.com`,
      customFields: Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i])),
    }),
    mustRefuse: n > 50,
  }));
  const valueCases: BodyCase[] = (
    [
      ['a huge number', '1e308', false],
      ['an overflowing number', '1e400', true],
      ['a negative zero', '-0', false],
      ['an object', '{"a":1}', true],
    ] as const
  ).map(([name, raw, mustRefuse]) => ({
    name: `/customFields/company: ${name}`,
    body: `{"email":"jane@example.com","customFields":{"company":${raw}}}`,
    mustRefuse,
  }));
  const many = { contacts: [contact, { email: 'omar@example.com' }] };
  const manyCases: BodyCase[] = (
    [
      ['no contacts', [], true],
      ['1,001 contacts', Array.from({ length: 1001 }, (_, i) => ({ email: `m${i}@example.com` })), true],
      ['the same email twice', [{ email: 'twice@example.com' }, { email: ' TWICE@example.com' }], true],
      ['a contact that is not an object', [contact, 'jane@example.com'], true],
      ['null in the list', [null], true],
    ] as [string, unknown, boolean][]
  ).map(([name, contacts, mustRefuse]) => ({
    name: `/contacts: ${name}`,
    body: JSON.stringify({ contacts }),
    mustRefuse,
  }));
  const listFilters = {
    search: 'jane',
    filters: [
      { field: 'group', op: 'eq', value: 'hostile-contacts' },
      { field: 'status', op: 'in', value: ['active'] },
    ],
  };
  // a cursor this environment answered for these filters: any change to it is refused
  const cursor = signCursor(
    h.runtime.deps.keys.listCursor,
    contactListBinding(s.environmentId, listFilters as ListContactsRequest),
    'ct_01M81C1XJB7Y4KHB01G4B1P0M5',
    h.clock.now(),
  );
  const listBase = { ...listFilters, pageSize: 10, cursor };
  const dated = { filters: [{ field: 'lastEmailedAt', op: 'after', value: '2026-11-01T00:00:00Z' }] };
  const clause = (c: unknown, mustRefuse: boolean, name = JSON.stringify(c)): BodyCase => ({
    name: `/filters/0: ${name}`,
    body: JSON.stringify({ filters: [c] }),
    mustRefuse,
  });
  const filterCases: BodyCase[] = [
    clause({ field: 'colour', op: 'eq', value: 'red' }, true),
    clause({ field: '__proto__', op: 'eq', value: 'x' }, true),
    clause({ field: 'status', op: 'lt', value: 'active' }, true),
    clause({ field: 'status', op: 'in', value: 'active' }, true),
    clause({ field: 'status', op: 'in', value: [] }, true),
    clause({ field: 'status', op: 'eq', value: ['active'] }, true),
    clause({ field: 'status', op: 'eq', value: 'ACTIVE' }, true),
    clause(
      { field: 'group', op: 'in', value: Array.from({ length: 101 }, (_, i) => `g${i}`) },
      true,
      '101 groups',
    ),
    clause({ field: 'project', op: 'eq', value: 'prj_x' }, true),
    clause({ field: 'environment', op: 'eq', value: `env_${'0'.repeat(26)}` }, false),
    clause({ field: 'suppressed', op: 'eq', value: 'true' }, true),
    clause({ field: 'complained', op: 'neq', value: true }, true),
    clause({ field: 'unsubscribed', op: 'eq', value: false }, false),
    clause({ field: 'lastEmailedAt', op: 'eq', value: '2026-11-01T00:00:00Z' }, true),
    clause({ field: 'group', op: 'eq', value: 'x', extra: 1 }, true),
    clause({ op: 'eq', value: 'x' }, true),
    clause('status', true),
    {
      name: '/filters: 21 clauses',
      body: JSON.stringify({
        filters: Array.from({ length: 21 }, () => ({ field: 'complained', op: 'eq', value: false })),
      }),
      mustRefuse: true,
    },
  ];
  const getRef: FieldSpec = {
    pointer: '/emailOrContactId',
    kind: 'email',
    valid: 'jane@example.com',
    limits: [320, 254],
    extra: [
      ...EMAIL_ATTACKS,
      ...IDENTIFIER_ATTACKS,
      { name: 'an unknown contact id', value: newId('ct'), mustRefuse: true },
      { name: 'a lowercase contact id', value: newId('ct').toLowerCase(), mustRefuse: true },
      { name: 'an unknown address', value: 'nobody-here@example.com', mustRefuse: true },
    ],
  };
  const corpus = (endpoint: string, url: string, cases: BodyCase[]) => ({
    endpoint,
    url,
    requests: bodyRequests(endpoint, url, bearer(s.apiKey), cases),
  });
  return [
    corpus('POST /v1/contacts/upsert', '/v1/contacts/upsert', [
      ...upsertCases(contact, ''),
      ...keyCases,
      ...fieldCountCases,
      ...valueCases,
      // Extra members go at the root: an extra custom field is a custom field.
      ...structuralBodies(contact, ''),
      ...sizeCases(contact, '/v1/contacts/upsert'),
      ...contentTypeBodies(contact),
    ]),
    corpus('POST /v1/contacts/upsert-many', '/v1/contacts/upsert-many', [
      ...upsertCases(many, '/contacts/0'),
      ...manyCases,
      ...wrongTypeBodies(many, '/contacts'),
      ...structuralBodies(many, ''),
      ...sizeCases(many, '/v1/contacts/upsert-many'),
      ...contentTypeBodies(many),
    ]),
    corpus('POST /v1/contacts/get', '/v1/contacts/get', [
      ...fieldBodies({ emailOrContactId: 'jane@example.com' }, [getRef]),
      ...wrongTypeBodies({ emailOrContactId: 'jane@example.com' }, '/emailOrContactId'),
      ...structuralBodies({ emailOrContactId: 'jane@example.com' }, ''),
      ...sizeCases({ emailOrContactId: 'jane@example.com' }, '/v1/contacts/get'),
      ...contentTypeBodies({ emailOrContactId: 'jane@example.com' }),
    ]),
    corpus('POST /v1/contacts/list', '/v1/contacts/list', [
      ...accepting(
        [
          ...fieldBodies(listBase, [
            { pointer: '/search', kind: 'text', valid: 'jane', limits: [200], allowEmpty: true },
            slug('/filters/0/value'),
            {
              pointer: '/filters/1/value/0',
              kind: 'exact',
              valid: 'active',
              limits: [20],
              extra: IDENTIFIER_ATTACKS,
            },
            { pointer: '/cursor', kind: 'exact', valid: cursor, limits: [200], extra: IDENTIFIER_ATTACKS },
          ]),
          ...fieldBodies(dated, [
            {
              pointer: '/filters/0/value',
              kind: 'exact',
              valid: '2026-11-01T00:00:00Z',
              limits: [40],
              extra: TIMESTAMP_ATTACKS,
            },
          ]),
          ...['/search', '/filters', '/pageSize', '/cursor'].flatMap((p) => wrongTypeBodies(listBase, p)),
        ],
        // cursor null is the first page (the last page answers nextCursor: null)
        ['/pageSize: a number', '/filters: an empty array', '/cursor: null'],
      ),
      ...filterCases,
      ...pageSizeCases(200),
      ...structuralBodies(listBase, ''),
      ...sizeCases(listBase, '/v1/contacts/list'),
      ...contentTypeBodies(listBase),
    ]),
  ];
}

// ---- contact groups

/** The contact the group corpora name by id; inserted into the corpus scope's tenant first. */
const GROUP_CONTACT_ID = newId('ct');

/** The contact group endpoints: name and slug rules, contact ids or emails, structure, media types. */
function groupCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const slug = (pointer: string): FieldSpec => ({
    pointer,
    kind: 'exact',
    valid: 'hostile-group',
    limits: [63],
    extra: GROUP_SLUG_ATTACKS,
  });
  const contactRef: FieldSpec = {
    pointer: '/contactIds/0',
    kind: 'email',
    valid: 'jane@example.com',
    limits: [320, 254],
    extra: [
      ...EMAIL_ATTACKS,
      ...IDENTIFIER_ATTACKS,
      { name: 'a lowercase contact id', value: GROUP_CONTACT_ID.toLowerCase(), mustRefuse: true },
      { name: 'a contact id with a space', value: ` ${GROUP_CONTACT_ID}`, mustRefuse: true },
      { name: 'an unknown contact id', value: newId('ct'), mustRefuse: true },
    ],
  };
  const members = { groupSlug: 'hostile-group', contactIds: ['jane@example.com', GROUP_CONTACT_ID] };
  const specs: {
    endpoint: string;
    url: string;
    base: Record<string, unknown>;
    fields: FieldSpec[];
    typed: string[];
  }[] = [
    {
      endpoint: 'POST /v1/contacts/groups/upsert',
      url: '/v1/contacts/groups/upsert',
      base: { name: 'Hostile Group' },
      fields: [{ pointer: '/name', kind: 'name', valid: 'Hostile Group', limits: [100] }, slug('/slug')],
      typed: ['/name'],
    },
    {
      endpoint: 'POST /v1/contacts/groups/list',
      url: '/v1/contacts/groups/list',
      base: {},
      fields: [],
      typed: [],
    },
    {
      endpoint: 'POST /v1/contacts/groups/add',
      url: '/v1/contacts/groups/add',
      base: members,
      fields: [slug('/groupSlug'), contactRef],
      typed: ['/groupSlug', '/contactIds'],
    },
    {
      endpoint: 'POST /v1/contacts/groups/remove',
      url: '/v1/contacts/groups/remove',
      base: members,
      fields: [slug('/groupSlug'), contactRef],
      typed: ['/groupSlug', '/contactIds'],
    },
    {
      endpoint: 'POST /v1/contacts/groups/delete',
      url: '/v1/contacts/groups/delete',
      base: { groupSlug: 'hostile-group' },
      fields: [slug('/groupSlug')],
      typed: ['/groupSlug'],
    },
  ];
  // contactIds as a whole: the array rules (1 to 1,000 unique items).
  const arrayCases: BodyCase[] = (
    [
      ['an empty array', []],
      ['1,001 items', Array.from({ length: 1001 }, (_, i) => `c${i}@example.com`)],
      ['a repeated item', ['jane@example.com', 'jane@example.com']],
      ['an array of arrays', [['jane@example.com']]],
      ['an array with null', [null]],
    ] as [string, unknown][]
  ).map(([name, value]) => ({
    name: `/contactIds: ${name}`,
    body: JSON.stringify({ ...members, contactIds: value }),
    mustRefuse: true,
  }));
  return specs.map((spec) => ({
    endpoint: spec.endpoint,
    url: spec.url,
    requests: bodyRequests(spec.endpoint, spec.url, bearer(s.apiKey), [
      ...(spec.base === members ? arrayCases : []),
      ...fieldBodies(spec.base, spec.fields),
      ...spec.typed.flatMap((pointer) => wrongTypeBodies(spec.base, pointer)),
      // Extra members go at the root: these bodies have no nested object.
      ...structuralBodies(spec.base, ''),
      ...sizeCases(spec.base, spec.url),
      ...contentTypeBodies(spec.base),
    ]),
  }));
}

// ---- bulk sends

/** POST /v1/contacts/send, /send/dry-run and /send/get: both shapes, targets, template data. */
function bulkCorpora(): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const target: FieldSpec = {
    pointer: '/contactIds/0',
    kind: 'email',
    valid: 'jane@example.com',
    limits: [320, 254],
    extra: [
      ...EMAIL_ATTACKS,
      ...IDENTIFIER_ATTACKS,
      { name: 'a lowercase contact id', value: GROUP_CONTACT_ID.toLowerCase(), mustRefuse: true },
      // named but unknown: skipped as not_found (the other target exists), not refused
      { name: 'an unknown contact id', value: newId('ct'), mustRefuse: false },
    ],
  };
  const reference = {
    projectId: s.projectId,
    environmentId: s.environmentId,
    templateId: 'reminder',
    templateData: { intro: 'Hello {{contact.name}}' },
    contactIds: ['jane@example.com', GROUP_CONTACT_ID],
  };
  const tutorial = { templateId: 'reminder', to: 'jane@example.com', data: { intro: 'Hi' } };
  const fields: FieldSpec[] = [
    target,
    { pointer: '/templateId', kind: 'exact', valid: 'reminder', limits: [100], extra: IDENTIFIER_ATTACKS },
    {
      pointer: '/templateData/intro',
      kind: 'text',
      valid: 'Hello {{contact.name}}',
      limits: [1000],
      allowEmpty: true,
    },
    { pointer: '/projectId', kind: 'exact', valid: s.projectId, limits: [64], extra: IDENTIFIER_ATTACKS },
    {
      pointer: '/environmentId',
      kind: 'exact',
      valid: s.environmentId,
      limits: [64],
      extra: IDENTIFIER_ATTACKS,
    },
  ];
  const tutorialFields: FieldSpec[] = [
    { pointer: '/to', kind: 'email', valid: 'jane@example.com', limits: [320, 254], extra: EMAIL_ATTACKS },
  ];
  const arrayCases: BodyCase[] = (
    [
      ['an empty array', []],
      ['1,001 items', Array.from({ length: 1001 }, (_, i) => `c${i}@example.com`)],
      ['an array of arrays', [['jane@example.com']]],
      ['an array with null', [null]],
    ] as [string, unknown][]
  ).map(([name, value]) => ({
    name: `/contactIds: ${name}`,
    body: JSON.stringify({ ...reference, contactIds: value }),
    mustRefuse: true,
  }));
  const shapeCases: BodyCase[] = [
    { name: 'data and templateData', body: JSON.stringify({ ...reference, data: {} }), mustRefuse: true },
    {
      name: 'no recipients',
      body: JSON.stringify({ ...reference, contactIds: undefined }),
      mustRefuse: true,
    },
    {
      name: 'a group slug with capitals',
      body: JSON.stringify({ ...reference, groupSlug: 'Hostile' }),
      mustRefuse: true,
    },
    {
      name: 'to as 1,001 items',
      body: JSON.stringify({ ...tutorial, to: Array.from({ length: 1001 }, () => 'jane@example.com') }),
      mustRefuse: true,
    },
  ];
  const jobId = 'job_01M81C1XJB7Y4KHB01G4B1P0M5';
  return [
    ...[
      ['POST /v1/contacts/send', '/v1/contacts/send'],
      ['POST /v1/contacts/send/dry-run', '/v1/contacts/send/dry-run'],
    ].map(([endpoint, url]) => ({
      endpoint: endpoint!,
      url: url!,
      requests: bodyRequests(endpoint!, url!, bearer(s.apiKey), [
        ...arrayCases,
        ...shapeCases,
        ...fieldBodies(reference, fields),
        ...fieldBodies(tutorial, tutorialFields),
        ...['/templateId', '/templateData', '/contactIds', '/projectId'].flatMap((pointer) =>
          wrongTypeBodies(reference, pointer),
        ),
        ...wrongTypeBodies(tutorial, '/to').filter((c) => !/array of strings/.test(c.name)),
        ...structuralBodies(reference, '/templateData'),
        ...sizeCases(reference, url!),
        ...contentTypeBodies(reference),
      ]),
    })),
    {
      endpoint: 'POST /v1/contacts/send/get',
      url: '/v1/contacts/send/get',
      requests: bodyRequests('POST /v1/contacts/send/get', '/v1/contacts/send/get', bearer(s.apiKey), [
        ...fieldBodies({ jobId }, [
          { pointer: '/jobId', kind: 'exact', valid: jobId, limits: [64], extra: IDENTIFIER_ATTACKS },
        ]),
        ...wrongTypeBodies({ jobId }, '/jobId'),
        ...structuralBodies({ jobId }, ''),
        ...sizeCases({ jobId }, '/v1/contacts/send/get'),
        ...contentTypeBodies({ jobId }),
      ]),
    },
  ];
}

// ---- relay events

const SES_FIXTURES = new URL('../src/inbound/fixtures-ses/', import.meta.url);
const sesFixture = (name: string) => fs.readFileSync(new URL(name, SES_FIXTURES), 'utf8');
const HOSTILE_TOPIC = 'arn:aws:sns:us-east-1:123456789012:hostile-ses';

/**
 * The relay intakes: each body is signed as it is sent (a Standard Webhooks signature with the
 * scope's secret; an SNS signature with the test key), so the checks behind the signature see
 * the hostile values. A changed signed field of an SNS message is refused by its signature.
 */
function eventCorpora(
  secret: string,
  environmentId: string,
): { endpoint: string; url: string; requests: HostileRequest[] }[] {
  const messageId = [...acceptedIds][0] ?? 'msg_01M81C1XJB7Y4KHB01G4B1P0M5';
  const intakeBase = {
    environmentId,
    type: 'bounced',
    messageId,
    recipient: 'jane@example.com',
    bounce: { type: 'permanent', status: '5.1.1', diagnostic: '550 5.1.1 User unknown' },
  };
  const intakeFields: FieldSpec[] = [
    {
      pointer: '/environmentId',
      kind: 'exact',
      valid: environmentId,
      limits: [30],
      extra: IDENTIFIER_ATTACKS,
    },
    { pointer: '/type', kind: 'exact', valid: 'bounced', limits: [20], extra: IDENTIFIER_ATTACKS },
    { pointer: '/messageId', kind: 'exact', valid: messageId, limits: [30], extra: IDENTIFIER_ATTACKS },
    { pointer: '/recipient', kind: 'text', valid: 'jane@example.com', limits: [320] },
    { pointer: '/bounce/type', kind: 'exact', valid: 'permanent', limits: [20] },
    { pointer: '/bounce/status', kind: 'exact', valid: '5.1.1', limits: [11] },
    {
      pointer: '/bounce/diagnostic',
      kind: 'text',
      valid: '550 5.1.1 User unknown',
      limits: [1000],
      allowEmpty: true,
    },
  ];
  let n = 0;
  const signIntake = (r: HostileRequest): HostileRequest => {
    const id = `hostile-${++n}`;
    const at = new Date();
    return {
      ...r,
      headers: {
        ...r.headers,
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(id, at, r.body ?? ''),
      },
    };
  };
  const sesBase = snsSigned({
    Type: 'Notification',
    MessageId: '00000000-0000-4000-8000-000000000001',
    TopicArn: HOSTILE_TOPIC,
    Message: sesFixture('delivery.json'),
    Timestamp: new Date().toISOString(),
    SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-hostile.pem',
  });
  const sesFields: FieldSpec[] = [
    { pointer: '/Type', kind: 'exact', valid: 'Notification', limits: [64] },
    { pointer: '/MessageId', kind: 'exact', valid: sesBase.MessageId, limits: [128] },
    { pointer: '/TopicArn', kind: 'exact', valid: HOSTILE_TOPIC, limits: [256], extra: IDENTIFIER_ATTACKS },
    { pointer: '/SignatureVersion', kind: 'exact', valid: '2', limits: [8] },
    {
      pointer: '/SigningCertURL',
      kind: 'exact',
      valid: sesBase.SigningCertURL,
      limits: [2048],
      extra: URL_ATTACKS.map((v) => ({ ...v, mustRefuse: true })),
    },
    { pointer: '/Message', kind: 'exact', valid: sesBase.Message, limits: [262_144] },
  ];
  // SNS posts text/plain: here that is JSON, not a refusal.
  const sesContentTypes = contentTypeBodies(sesBase).map((c) =>
    c.contentType === 'text/plain' ? { ...c, mustRefuse: false } : c,
  );
  return [
    {
      endpoint: 'POST /v1/events/intake',
      url: '/v1/events/intake',
      requests: bodyRequests('POST /v1/events/intake', '/v1/events/intake', {}, [
        ...fieldBodies(intakeBase, intakeFields),
        ...wrongTypeBodies(intakeBase, '/bounce'),
        ...structuralBodies(intakeBase, '/bounce'),
        ...sizeCases(intakeBase, '/v1/events/intake'),
        ...contentTypeBodies(intakeBase),
      ]).map(signIntake),
    },
    {
      endpoint: 'POST /v1/events/ses',
      url: '/v1/events/ses',
      requests: bodyRequests('POST /v1/events/ses', '/v1/events/ses', {}, [
        ...fieldBodies(sesBase, sesFields),
        ...wrongTypeBodies(sesBase, '/Message'),
        ...structuralBodies(sesBase, '/Message'),
        ...sesContentTypes,
      ]),
    },
  ];
}

function snsSigned<T extends Record<string, unknown>>(
  msg: T,
): T & { SignatureVersion: string; Signature: string } {
  const text = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
    .filter((k) => msg[k] !== undefined)
    .map((k) => `${k}\n${msg[k]}\n`)
    .join('');
  const signer = createSign('RSA-SHA256');
  signer.update(text, 'utf8');
  return {
    ...msg,
    SignatureVersion: '2',
    Signature: signer.sign(sesFixture('test-signing-key.pem'), 'base64'),
  };
}

describe('relay events', () => {
  it('answers every hostile body, signed, on /v1/events/intake and /v1/events/ses with a documented 4xx (or accepts it when no rule refuses it)', async () => {
    const { secret } = (await h.admin('events.create-secret', { environment: sac.environmentId })).secret;
    await h.admin('events.add-ses-topic', { environment: sac.environmentId, topicArn: HOSTILE_TOPIC });
    const saved = h.runtime.deps.sns;
    h.runtime.deps.sns = {
      fetchCertificate: async () => sesFixture('test-signing-cert.pem'),
      confirmSubscription: async () => {},
      certificates: new Map(),
    };
    try {
      for (const corpus of eventCorpora(secret, sac.environmentId)) {
        const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
        expect(statuses.get(200) ?? 0, corpus.endpoint).toBeGreaterThan(0);
        expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
        expect(statuses.get(401) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      }
    } finally {
      h.runtime.deps.sns = saved;
    }
  });
});

describe('recipients and messages', () => {
  it('covers every built /v1 operation in the hostile corpus', () => {
    const covered = new Set([
      'GET /v1/quota',
      'POST /v1/send',
      'POST /v1/send/batch',
      ...lookupCorpora().map((c) => c.endpoint),
      ...messageListCorpora().map((c) => c.endpoint),
      ...keyCorpora().map((c) => c.endpoint),
      ...auditCorpora().map((c) => c.endpoint),
      ...statsCorpora().map((c) => c.endpoint),
      ...templateListCorpora().map((c) => c.endpoint),
      ...suppressionCorpora().map((c) => c.endpoint),
      ...webhookCorpora().map((c) => c.endpoint),
      ...domainCorpora().map((c) => c.endpoint),
      ...eventCorpora('whsec_AAAA', 'env_01M81C1XJB7Y4KHB01G4B1P0M5').map((c) => c.endpoint),
      ...groupCorpora().map((c) => c.endpoint),
      ...contactCorpora().map((c) => c.endpoint),
      ...bulkCorpora().map((c) => c.endpoint),
    ]);
    for (const op of Object.values(operations)) {
      expect(covered, `${op.method} ${op.path}: add it to the hostile corpus`).toContain(
        `${op.method} ${op.path}`,
      );
    }
  });

  it('answers every hostile body on the recipients and messages endpoints with a documented 4xx (or accepts it when no rule refuses it)', async () => {
    for (const corpus of lookupCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
  });
});

describe('contacts', () => {
  it('answers every hostile body on the contacts endpoints with a documented 4xx (or accepts it when no rule refuses it)', async () => {
    for (const corpus of contactCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(200) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
  });
});

/** jane@example.com as GROUP_CONTACT_ID (the contacts corpus may have created her under another id). */
async function ensureGroupContact(): Promise<void> {
  const db = h.runtime.deps.db;
  await db
    .deleteFrom('contacts')
    .where('tenant_id', '=', s.tenantId)
    .where('email', '=', 'jane@example.com')
    .where('id', '<>', GROUP_CONTACT_ID)
    .execute();
  const now = h.clock.now();
  await db
    .insertInto('contacts')
    .values({
      id: GROUP_CONTACT_ID,
      tenant_id: s.tenantId,
      email: 'jane@example.com',
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

describe('contact groups', () => {
  it('answers every hostile body on the contact group endpoints with a documented 4xx (or accepts it when no rule refuses it)', async () => {
    await ensureGroupContact();
    for (const corpus of groupCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(200) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
  });
});

describe('bulk sends', () => {
  it('answers every hostile body on the bulk send endpoints with a documented 4xx (or accepts it when no rule refuses it)', async () => {
    await ensureGroupContact();
    for (const corpus of bulkCorpora()) {
      const statuses = await expectEveryAnswerDocumented(`${corpus.endpoint} bodies`, corpus.requests);
      expect(statuses.get(400) ?? 0, corpus.endpoint).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(500) ?? 0), corpus.endpoint).toBe(0);
    }
  });
});

describe('headers', () => {
  it('answers hostile Authorization, Idempotency-Key and huge headers on /v1/send, /v1/quota and /healthz in the envelope', async () => {
    await expectEveryAnswerDocumented('headers', headerCorpus());
  });
});

// ---- admin

const unknownId = (prefix: string) => `${prefix}_${'0'.repeat(26)}`;
/** Registered before the admin corpus runs: domains.set-status's variants name it. */
const STATUS_DOMAIN = 'status-hostile.example.com';

/** A valid body per admin command, on the sacrificial scope (deletes and revokes name unknown ids). */
function adminBase(name: string): Record<string, unknown> {
  switch (name) {
    case 'bootstrap':
      return {};
    case 'plans.create':
      return { id: 'hostile-plan', monthlyLimit: 10, overageAllowed: false };
    case 'plans.update':
      return { id: sac.planId, monthlyLimit: 2_000_000_000 };
    case 'tenants.create':
      return { name: 'Hostile Tenant', plan: sac.planId };
    case 'tenants.update':
      return { id: sac.tenantId, name: 'Hostile Tenant' };
    case 'tenants.delete':
      return { id: unknownId('ten') };
    case 'tenants.list':
      return { includeDeleted: true };
    case 'projects.create':
      return { tenant: sac.tenantId, name: 'Hostile Project' };
    case 'projects.update':
      return { id: sac.projectId, name: 'Hostile Project' };
    case 'projects.delete':
      return { id: unknownId('prj') };
    case 'projects.list':
      return { tenant: sac.tenantId };
    case 'environments.create':
      return { project: sac.projectId, name: 'staging' };
    case 'environments.update':
      return { id: sac.environmentId, name: 'staging' };
    case 'environments.delete':
      return { id: unknownId('env') };
    case 'environments.list':
      return { project: sac.projectId };
    case 'keys.create':
      return { environment: sac.environmentId };
    case 'keys.revoke':
      return { id: unknownId('key') };
    case 'keys.list':
      return { environment: sac.environmentId };
    case 'domains.add':
      return { domain: 'hostile.example.com', environment: sac.environmentId };
    case 'domains.set-status':
      return { domain: STATUS_DOMAIN, status: 'pending' };
    case 'domains.set-return-path':
      return { domain: STATUS_DOMAIN, status: 'pending' };
    case 'domains.list':
      return { tenant: sac.tenantId };
    case 'usage.show':
      return { tenant: sac.tenantId, period: '2026-11' };
    case 'suppressions.export':
      return { environment: sac.environmentId };
    case 'recipients.show':
    case 'recipients.unsuppress':
    case 'recipients.clear-complaint':
      return { environment: sac.environmentId, email: 'jane@example.com' };
    case 'recipients.suppress':
      return { environment: sac.environmentId, email: 'jane@example.com', days: 1 };
    case 'audit.list':
      return { tenant: sac.tenantId, since: '2026-11-01T00:00:00Z', limit: 5 };
    case 'events.create-secret':
    case 'events.show':
      return { environment: sac.environmentId };
    case 'events.revoke-secret':
      return { id: unknownId('whs') };
    case 'jobs.show':
    case 'jobs.resume':
    case 'jobs.cancel':
      return { id: unknownId('job') };
    case 'members.invite':
      return { tenant: sac.tenantId, email: 'hostile-member@example.com', role: 'viewer' };
    case 'members.list':
      return { tenant: sac.tenantId };
    case 'plans.list':
      return {};
    case 'events.remove-ses-topic':
      return { topicArn: 'arn:aws:sns:eu-west-1:123456789012:no-such-topic' };
    case 'events.add-ses-topic':
      return { environment: sac.environmentId, topicArn: 'arn:aws:sns:eu-west-1:123456789012:hostile-topic' };
    default:
      throw new Error(`no base body for the admin command ${name}: add one to the hostile corpus`);
  }
}

interface TypeBoxNode {
  type?: string;
  const?: unknown;
  anyOf?: TypeBoxNode[];
  pattern?: string;
  format?: string;
  maxLength?: number;
  minLength?: number;
  maximum?: number;
}

const ADMIN_TIMESTAMP_ATTACKS: Variant[] = [
  ...TIMESTAMP_ATTACKS.filter((v) => v.name !== 'nanoseconds').map((v) => ({ ...v, mustRefuse: true })),
  { name: 'before 1970', value: '1969-12-31T23:59:59Z', mustRefuse: true },
  { name: 'year 10000 in UTC', value: '9999-12-31T23:59:59-01:00', mustRefuse: true },
  { name: 'an offset of 14:01', value: '2026-11-22T10:15:30+14:01', mustRefuse: true },
];

/** Every field of an admin command, from its input schema: strings get the hostile variants, others wrong values. */
function adminFieldCases(name: string, base: Record<string, unknown>): BodyCase[] {
  const input = adminCommands[name]!.input as unknown as { properties: Record<string, TypeBoxNode> };
  const cases: BodyCase[] = [];
  for (const [prop, node] of Object.entries(input.properties)) {
    const options = node.anyOf ?? [node];
    const literals = options.filter((o) => o.const !== undefined);
    const open = options.find((o) => o.const === undefined);
    const pointer = `/${prop}`;
    if (open?.type === 'integer' || open?.type === 'boolean') {
      const values: [string, unknown][] =
        open.type === 'integer'
          ? [
              ['-1', -1],
              ['1.5', 1.5],
              ['2^31', 2 ** 31],
              ['1e308', 1e308],
              ['its maximum + 1', (open.maximum ?? 2 ** 53) + 1],
              ['a numeric string', '10'],
            ]
          : [
              ['the string true', 'true'],
              ['1', 1],
            ];
      const wrongTypes = WRONG_TYPES.filter(
        ([, v]) => typeof v !== (open.type === 'integer' ? 'number' : 'boolean'),
      );
      for (const [label, value] of [...values, ...wrongTypes])
        cases.push({
          name: `${pointer}: ${label}`,
          body: JSON.stringify({ ...base, [prop]: value }),
          mustRefuse: true,
        });
      continue;
    }
    const isEnum = open === undefined;
    const kind: FieldSpec['kind'] = isEnum
      ? 'exact'
      : open.format === 'email'
        ? 'email'
        : open.format === 'date-time'
          ? 'exact'
          : open.pattern?.startsWith('^[^')
            ? 'name'
            : open.pattern
              ? 'exact'
              : prop === 'fromName' || prop === 'displayName'
                ? 'name'
                : prop === 'domain'
                  ? 'domain'
                  : 'text';
    const valid =
      typeof base[prop] === 'string'
        ? (base[prop] as string)
        : isEnum
          ? String(literals[0]!.const)
          : (adminSamples()[prop] ?? 'sample');
    const extra =
      kind === 'email'
        ? EMAIL_ATTACKS
        : open?.format === 'date-time'
          ? ADMIN_TIMESTAMP_ATTACKS
          : kind === 'exact'
            ? // A plan may be called "constructor" (the plan id pattern allows it): refused only when unknown.
              prop === 'plan' || name.startsWith('plans.')
              ? IDENTIFIER_ATTACKS.map((v) => ({ ...v, mustRefuse: false }))
              : IDENTIFIER_ATTACKS
            : [];
    const spec: FieldSpec = {
      pointer,
      kind,
      valid,
      limits: [open?.maxLength ?? 100_000],
      allowEmpty:
        literals.some((l) => l.const === '') || ((kind === 'text' || kind === 'name') && !open?.minLength),
      extra,
    };
    for (const v of fieldVariants(spec)) {
      const cannotStore =
        typeof v.value === 'string' &&
        (v.value.includes('\u0000') || !(v.value as string & { isWellFormed(): boolean }).isWellFormed());
      cases.push({
        name: `${pointer}: ${v.name}`,
        body: JSON.stringify({ ...base, [prop]: v.value }),
        mustRefuse: v.mustRefuse,
        ...(cannotStore && { refusePath: pointer }),
      });
    }
  }
  return cases;
}

const adminSamples = (): Record<string, string> => ({
  plan: sac.planId,
  tenant: sac.tenantId,
  project: sac.projectId,
  environment: sac.environmentId,
  trialEndsAt: '2027-01-01T00:00:00Z',
  fromEmail: 'from@example.com',
  replyTo: 'reply@example.com',
  supportEmail: 'support@example.com',
  fromName: 'Acme Support',
  displayName: 'Acme App',
  name: 'Hostile',
  period: '2026-11',
});

/** Commands that get every structural attack; the others get the essential ones. */
const FULLY_STRUCTURAL = new Set([
  'bootstrap',
  'tenants.create',
  'projects.update',
  'domains.add',
  'usage.show',
]);

const adminPath = (name: string) => `/admin/v1/${name.replace('.', '/')}`;

/**
 * @param domainOwners environments without a sending domain, one per hostile value of domains.add's
 * `domain`, each also on its own name: a scope has one domain and a domain one scope, so an accepted
 * value would hide the next behind 409 conflict.
 */
function adminCorpus(domainOwners: string[]): HostileRequest[] {
  const out: HostileRequest[] = [];
  const auth = bearer(ADMIN_TOKEN);
  for (const name of Object.keys(adminCommands)) {
    const base = adminBase(name);
    const cases = [
      ...adminFieldCases(name, base),
      ...(FULLY_STRUCTURAL.has(name)
        ? [
            ...structuralBodies(base, ''),
            ...contentTypeBodies(base),
            ...sizeBodies(base, adminCommands[name]!.input),
          ]
        : essentialBodies(base, '')),
    ];
    let owner = 0;
    const unique =
      name === 'domains.add'
        ? cases.map((c) =>
            c.name.startsWith('/domain:') && typeof c.body === 'string'
              ? {
                  ...c,
                  body: c.body
                    .replace('"hostile.e', `"h${owner}.hostile.e`)
                    .replace(sac.environmentId, domainOwners[owner++]!),
                }
              : c,
          )
        : cases;
    out.push(...bodyRequests(`POST ${adminPath(name)}`, adminPath(name), auth, unique));
  }
  const tokens: [string, string | undefined, boolean][] = [
    ['no Authorization', undefined, true],
    ['the token without a scheme', ADMIN_TOKEN, true],
    ['Basic', `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`, true],
    ['the token with a trailing character', `Bearer ${ADMIN_TOKEN}x`, true],
    ['the token without its last character', `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, true],
    ['a 10 KB token', `Bearer ${'t'.repeat(10 * 1024)}`, true],
    ['an API key', `Bearer ${s.apiKey}`, true],
    ['the token with a NUL', `Bearer ${ADMIN_TOKEN}\u0000`, true],
    ['the token and a CRLF', `Bearer ${ADMIN_TOKEN}\r\nX-A: 1`, true],
    ['lowercase bearer', `bearer ${ADMIN_TOKEN}`, false],
    ['a tab', `Bearer\t${ADMIN_TOKEN}`, false],
  ];
  for (const [label, value, mustRefuse] of tokens)
    for (const name of ['tenants.create', 'keys.create', 'usage.show'])
      out.push({
        endpoint: `POST ${adminPath(name)}`,
        name: `Authorization: ${label}`,
        method: 'POST',
        url: adminPath(name),
        headers: { authorization: value, 'content-type': JSON_TYPE },
        body: JSON.stringify(adminBase(name)),
        mustRefuse,
      });
  return out;
}

describe('admin API', () => {
  it('answers every hostile body on every admin command with a documented 4xx in the envelope (or accepts it when no rule refuses it)', async () => {
    await h.admin('domains.add', { domain: STATUS_DOMAIN, tenant: sac.tenantId });
    const domainOwners: string[] = [];
    for (let i = 0; i < 60; i++) {
      const { environment } = await h.admin('environments.create', {
        project: sac.projectId,
        name: `domains ${i}`,
      });
      domainOwners.push(environment.id);
    }
    // Sequential: commands change the records later commands name.
    await expectEveryAnswerDocumented('admin commands', adminCorpus(domainOwners), 1);
  });
});

// ---- methods and paths

interface RouteSpec {
  endpoint: string;
  url: string;
  allowed: string[];
  headers: Record<string, string>;
  body?: string;
  isHtmlRoute?: boolean;
}

function routes(): RouteSpec[] {
  const json = { 'content-type': JSON_TYPE };
  const get = ['GET', 'HEAD'];
  return [
    { endpoint: 'GET /healthz', url: '/healthz', allowed: get, headers: {} },
    { endpoint: 'GET /readyz', url: '/readyz', allowed: get, headers: {} },
    { endpoint: 'GET /metrics', url: '/metrics', allowed: get, headers: {} },
    { endpoint: 'GET /v1/quota', url: '/v1/quota', allowed: get, headers: bearer(s.apiKey) },
    {
      endpoint: 'POST /v1/send',
      url: '/v1/send',
      allowed: ['POST'],
      headers: { ...bearer(s.apiKey), ...json },
      body: '{}',
    },
    ...['/v1/contacts/upsert', '/v1/contacts/upsert-many', '/v1/contacts/get', '/v1/contacts/list'].map(
      (url) => ({
        endpoint: `POST ${url}`,
        url,
        allowed: ['POST'],
        headers: { ...bearer(s.apiKey), ...json },
        body: '{}',
      }),
    ),
    ...['/v1/recipients/status', '/v1/recipients/resubscribe', '/v1/messages/get'].map((url) => ({
      endpoint: `POST ${url}`,
      url,
      allowed: ['POST'],
      headers: { ...bearer(s.apiKey), ...json },
      body: '{}',
    })),
    ...[
      '/v1/contacts/groups/upsert',
      '/v1/contacts/groups/list',
      '/v1/contacts/groups/delete',
      '/v1/contacts/groups/add',
      '/v1/contacts/groups/remove',
      '/v1/contacts/send',
      '/v1/contacts/send/dry-run',
      '/v1/contacts/send/get',
    ].map((url) => ({
      endpoint: `POST ${url}`,
      url,
      allowed: ['POST'],
      headers: { ...bearer(s.apiKey), ...json },
      body: '{}',
    })),
    {
      endpoint: 'GET|POST /u/*',
      url: '/u/not-a-token',
      allowed: ['GET', 'HEAD', 'POST'],
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
      isHtmlRoute: true,
    },
    ...Object.keys(adminCommands).map((name) => ({
      endpoint: `POST ${adminPath(name)}`,
      url: adminPath(name),
      allowed: ['POST'],
      headers: { ...bearer(ADMIN_TOKEN), ...json },
      body: '{"hostile":true}',
    })),
    // The console (hostile-console.test.ts runs the body corpus over its POST routes).
    { endpoint: 'GET /console', url: '/console', allowed: get, headers: {}, isHtmlRoute: true },
    {
      endpoint: 'GET /console/*',
      url: '/console/emails/msg_x',
      allowed: get,
      headers: {},
      isHtmlRoute: true,
    },
    { endpoint: 'GET /console/assets/app.css', url: '/console/assets/app.css', allowed: get, headers: {} },
    { endpoint: 'GET /console/api/me', url: '/console/api/me', allowed: get, headers: {} },
    {
      endpoint: 'GET /console/preview/template/:id',
      url: `/console/preview/template/login-code?environmentId=${s.environmentId}`,
      allowed: get,
      headers: {},
    },
    {
      endpoint: 'GET /console/preview/message/:id',
      url: `/console/preview/message/${unknownId('msg')}?environmentId=${s.environmentId}`,
      allowed: get,
      headers: {},
    },
    ...Object.keys(CONSOLE_BODIES).map((url) => ({
      endpoint: `POST ${url}`,
      url,
      allowed: ['POST'],
      headers: { origin: 'http://attacker.example', ...json },
      body: '{}',
    })),
    { endpoint: 'GET /dev/templates', url: '/dev/templates', allowed: get, headers: {}, isHtmlRoute: true },
    {
      endpoint: 'GET /dev/templates/:id',
      url: '/dev/templates/login-code',
      allowed: get,
      headers: {},
      isHtmlRoute: true,
    },
    { endpoint: 'GET /dev/templates/app.js', url: '/dev/templates/app.js', allowed: get, headers: {} },
    // A cross-site Origin, so that an allowed POST is refused: nothing is rendered or sent.
    ...['render', 'send'].map((action) => ({
      endpoint: `POST /dev/templates/:id/${action}`,
      url: `/dev/templates/login-code/${action}`,
      allowed: ['POST'],
      headers: { origin: 'http://attacker.example', ...json },
      body: JSON.stringify({ data: { code: '1' }, to: 'jane@example.com' }),
    })),
    { endpoint: 'GET /dev/inbox', url: '/dev/inbox', allowed: get, headers: {}, isHtmlRoute: true },
    { endpoint: 'GET /dev/inbox.json', url: '/dev/inbox.json', allowed: get, headers: {} },
    {
      endpoint: 'GET /dev/inbox/:id',
      url: `/dev/inbox/${unknownId('msg')}`,
      allowed: get,
      headers: {},
      isHtmlRoute: true,
    },
    {
      endpoint: 'GET /dev/inbox/:id/raw',
      url: `/dev/inbox/${unknownId('msg')}/raw`,
      allowed: get,
      headers: {},
      isHtmlRoute: true,
    },
    { endpoint: 'GET /dev/inbox/app.js', url: '/dev/inbox/app.js', allowed: get, headers: {} },
    // (GET /dev/inbox/events is a stream that does not end: dev-inbox.test.ts covers its methods.)
    // A cross-site Origin, so that an allowed DELETE is refused and the captured message stays.
    {
      endpoint: 'GET|DELETE /dev/inbox/api/messages',
      url: '/dev/inbox/api/messages',
      allowed: [...get, 'DELETE'],
      headers: { origin: 'http://attacker.example' },
    },
    {
      endpoint: 'GET /dev/inbox/api/messages/latest',
      url: '/dev/inbox/api/messages/latest',
      allowed: get,
      headers: {},
    },
    {
      endpoint: 'GET|DELETE /dev/inbox/api/messages/:id',
      url: `/dev/inbox/api/messages/${unknownId('msg')}`,
      allowed: [...get, 'DELETE'],
      headers: {},
    },
    {
      endpoint: 'GET /dev/inbox/webhooks',
      url: '/dev/inbox/webhooks',
      allowed: get,
      headers: {},
      isHtmlRoute: true,
    },
    // A cross-site Origin, so that an allowed POST or DELETE is refused: nothing is caught or deleted.
    {
      endpoint: 'POST /dev/inbox/webhooks/catch',
      url: '/dev/inbox/webhooks/catch',
      allowed: ['POST'],
      headers: { origin: 'http://attacker.example', ...json },
      body: '{"type":"webhook.test"}',
    },
    {
      endpoint: 'GET|DELETE /dev/inbox/api/webhooks',
      url: '/dev/inbox/api/webhooks',
      allowed: [...get, 'DELETE'],
      headers: { origin: 'http://attacker.example' },
    },
  ];
}

describe('methods and paths', () => {
  it('answers every method on every path with 405 and Allow unless the path allows it', async () => {
    const requests: HostileRequest[] = [];
    for (const r of routes())
      for (const method of ALL_METHODS)
        requests.push({
          endpoint: r.endpoint,
          name: `method ${method}`,
          method,
          url: r.url,
          headers: r.headers,
          ...(r.body !== undefined && { body: r.body }),
          expect405: !r.allowed.includes(method),
          ...(r.isHtmlRoute && { isHtmlRoute: true }),
        });
    await expectEveryAnswerDocumented('every method on every path', requests);
  });

  it('answers path tricks (encodings, dot segments, case, slashes, 10 KB paths) with a documented answer', async () => {
    const validSend = JSON.stringify({
      templateId: 'login-code',
      to: 'paths@example.com',
      data: { code: '1' },
    });
    const targets: RouteSpec[] = [
      {
        endpoint: 'POST /v1/send',
        url: '/v1/send',
        allowed: ['POST'],
        headers: { ...bearer(s.apiKey), 'content-type': JSON_TYPE },
        body: validSend,
      },
      { endpoint: 'GET /v1/quota', url: '/v1/quota', allowed: ['GET'], headers: bearer(s.apiKey) },
      { endpoint: 'GET /healthz', url: '/healthz', allowed: ['GET'], headers: {} },
      {
        endpoint: 'POST /admin/v1/tenants/create',
        url: '/admin/v1/tenants/create',
        allowed: ['POST'],
        headers: { ...bearer(ADMIN_TOKEN), 'content-type': JSON_TYPE },
        body: JSON.stringify({ name: 'Path Tricks', plan: sac.planId }),
      },
      { endpoint: 'GET /dev/inbox', url: '/dev/inbox', allowed: ['GET'], headers: {}, isHtmlRoute: true },
      {
        endpoint: 'GET|POST /u/*',
        url: `/u/${unsubscribeToken}`,
        allowed: ['GET'],
        headers: {},
        isHtmlRoute: true,
      },
    ];
    const requests: HostileRequest[] = [];
    for (const t of targets)
      for (const [name, url] of pathTricks(t.url))
        requests.push({
          // Counted where the trick aims; the answer may come from another route.
          endpoint: t.endpoint === 'POST /v1/send' ? 'path tricks on /v1/send' : t.endpoint,
          name: `path: ${name}`,
          method: t.allowed[0]!,
          url,
          headers: t.headers,
          ...(t.body !== undefined && { body: t.body }),
          // A trick on an HTML route may still land on it.
          ...(t.isHtmlRoute && { isHtmlRoute: true }),
        });
    for (const name of [
      '__proto__/x',
      'constructor/prototype',
      'tenants.create',
      'tenants/create/',
      'TENANTS/CREATE',
    ])
      requests.push({
        endpoint: 'admin path tricks',
        name: `admin path ${name}`,
        method: 'POST',
        url: `/admin/v1/${name}`,
        headers: { ...bearer(ADMIN_TOKEN), 'content-type': JSON_TYPE },
        body: '{}',
      });
    await expectEveryAnswerDocumented('path tricks', requests);
  });
});

// ---- unsubscribe pages

describe('unsubscribe pages', () => {
  it('answers hostile unsubscribe links and form bodies with a page, never a 5xx', async () => {
    const t = unsubscribeToken;
    const tokens: [string, string][] = [
      ['a genuine token', t],
      ['a trailing character', `${t}A`],
      ['no last character', t.slice(0, -1)],
      ['upper case', t.toUpperCase()],
      ['base64 padding', `${t}==`],
      ['standard base64 characters', t.replaceAll('-', '+').replaceAll('_', '/')],
      ['an encoded NUL', `${t}%00`],
      ['an encoded CRLF', `${t}%0d%0aSet-Cookie:%20x=y`],
      ['an extra segment', `${t}/extra`],
      ['empty', ''],
      ['a dot', '.'],
      ['an encoded traversal', '..%2f..%2fv1%2fsend'],
      ['a 10 KB token', 'A'.repeat(10 * 1024)],
      ['a bad percent-encoding', '%zz'],
      ['encoded invalid UTF-8', '%ff%fe'],
      ['an encoded bidi override', `%E2%80%AE${t}`],
      ['a script', '%3Cscript%3Ealert(1)%3C%2Fscript%3E'],
      ['via=page', `${t}?via=page`],
      ['via as an array', `${t}?via[]=page&via=page&via=x`],
      ['__proto__ in the query', `${t}?__proto__[via]=page&constructor[prototype][x]=1`],
    ];
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const requests: HostileRequest[] = [];
    for (const [name, token] of tokens) {
      const url = `/u/${token}`;
      requests.push({
        endpoint: 'GET|POST /u/*',
        name: `GET ${name}`,
        method: 'GET',
        url,
        headers: {},
        isHtmlRoute: true,
      });
      // The genuine token is unsubscribed by POST only below, with the body cases.
      if (name !== 'a genuine token')
        requests.push({
          endpoint: 'GET|POST /u/*',
          name: `POST ${name}`,
          method: 'POST',
          url,
          headers: form,
          body: 'List-Unsubscribe=One-Click',
          isHtmlRoute: true,
        });
    }
    const boundary = '----hostile';
    const bodies: [string, Record<string, string | undefined>, string | Buffer | undefined, boolean][] = [
      ['a one-click form', form, 'List-Unsubscribe=One-Click', false],
      [
        'a multipart body',
        { 'content-type': `multipart/form-data; boundary=${boundary}` },
        `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`,
        false,
      ],
      [
        'multipart with a broken boundary',
        { 'content-type': `multipart/form-data; boundary=${boundary}` },
        '--nope\r\n\r\n',
        false,
      ],
      ['multipart without a boundary', { 'content-type': 'multipart/form-data' }, 'x', false],
      ['JSON', { 'content-type': 'application/json' }, '{"List-Unsubscribe":"One-Click"}', true],
      ['text/plain', { 'content-type': 'text/plain' }, 'List-Unsubscribe=One-Click', true],
      ['no Content-Type with a body', {}, 'List-Unsubscribe=One-Click', false],
      ['no body', {}, undefined, false],
      ['a 9 KB form', form, `List-Unsubscribe=One-Click&x=${'a'.repeat(9 * 1024)}`, true],
      ['a 1 MB form', form, `x=${'a'.repeat(1024 * 1024)}`, true],
      ['a form with NUL bytes', form, 'List-Unsubscribe=One%00Click&\u0000=\u0000', false],
      ['a form of 2,000 fields', form, Array.from({ length: 2000 }, (_, i) => `f${i}=${i}`).join('&'), false],
      [
        'a UTF-16 form',
        { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16' },
        Buffer.from('a=b', 'utf16le'),
        false,
      ],
      [
        'a Content-Type with a CRLF',
        { 'content-type': 'application/x-www-form-urlencoded\r\nX-A: 1' },
        'a=b',
        false,
      ],
      [
        'a 9 KB multipart',
        { 'content-type': `multipart/form-data; boundary=${boundary}` },
        `--${boundary}\r\n${'m'.repeat(9 * 1024)}`,
        true,
      ],
    ];
    for (const [name, headers, body, mustRefuse] of bodies)
      requests.push({
        endpoint: 'GET|POST /u/*',
        name: `POST with ${name}`,
        method: 'POST',
        url: `/u/${t}`,
        headers,
        ...(body !== undefined && { body }),
        mustRefuse,
        isHtmlRoute: true,
      });
    await expectEveryAnswerDocumented('unsubscribe pages', requests);
  });
});

// ---- dev pages

describe('dev pages', () => {
  it('answers hostile ids and queries on /dev/templates and /dev/inbox without a 5xx', async () => {
    const ids: [string, string][] = [
      ['a captured id', capturedId],
      ['an unknown id', unknownId('msg')],
      ['a lowercase id', capturedId.toLowerCase()],
      ['a 101-character id', `msg_${'A'.repeat(97)}`],
      ['a 200-character id', 'a'.repeat(200)],
      ['an encoded traversal', '..%2F..%2F..%2Fetc%2Fpasswd'],
      ['an encoded dot-dot', '%2e%2e'],
      ['an encoded NUL', `${capturedId}%00`],
      ['an encoded CRLF', `${capturedId}%0d%0aX-A:%201`],
      ['an encoded quote and markup', '%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E'],
      ['an encoded bidi override', `%E2%80%AE${capturedId}`],
      ['a bad percent-encoding', '%zz'],
      ['__proto__', '__proto__'],
      ['constructor', 'constructor'],
      ['the id and .eml', `${capturedId}.eml`],
      ['the id and .json', `${capturedId}.json`],
    ];
    const requests: HostileRequest[] = [];
    for (const [name, id] of ids)
      for (const suffix of ['', '/raw'])
        requests.push({
          endpoint: `GET /dev/inbox/:id${suffix}`,
          name: `id: ${name}`,
          method: 'GET',
          url: `/dev/inbox/${id}${suffix}`,
          headers: {},
          isHtmlRoute: true,
        });
    for (const [name, id] of [
      ...ids,
      ['a template id', 'login-code'],
      ['a template id and a slash', 'login-code/'],
    ])
      requests.push({
        endpoint: 'GET /dev/templates/:id',
        name: `id: ${name}`,
        method: 'GET',
        url: `/dev/templates/${id}`,
        headers: {},
        isHtmlRoute: true,
      });
    // A project that is not a project id is not found (404 page), never looked up.
    const pageQueries: [string, string, boolean][] = [
      ['a NUL project', '?project=%00', true],
      ['a project with a NUL', '?project=prj_x%00', true],
      ['a 10 KB project', `?project=${'p'.repeat(10 * 1024)}`, true],
      ['a 65-character project', `?project=${'p'.repeat(65)}`, true],
      ['a project with a bidi override', '?project=%E2%80%AEprj_x', true],
      ['a project in markup', '?project=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E', true],
      ['SQL in the project', "?project=x'%20OR%20'1'%3D'1", true],
      ['two projects', '?project=prj_a&project=prj_b', true],
      ['project[] (another parameter: no project)', '?project[]=prj_a', false],
      ['an unknown project', `?project=${unknownId('prj')}`, true],
      ['an empty project (the example)', '?project=', false],
      ['a NUL version', '?version=%00', true],
      ['a version array', '?version[]=v1', false],
      ['odd toolbar values', '?scheme=%00&width=-1&view[]=text', false],
      ['__proto__', '?__proto__[project]=x&constructor[prototype][x]=1', false],
    ];
    for (const [name, query, mustRefuse] of pageQueries)
      requests.push({
        endpoint: 'GET /dev/templates/:id',
        name: `query: ${name}`,
        method: 'GET',
        url: `/dev/templates/login-code${query}`,
        headers: {},
        mustRefuse,
        isHtmlRoute: true,
      });
    for (const [name, id] of ids)
      requests.push({
        endpoint: 'GET /dev/inbox/api/messages/:id',
        name: `id: ${name}`,
        method: 'GET',
        url: `/dev/inbox/api/messages/${id}`,
        headers: {},
      });
    const queries: [string, string][] = [
      ['/dev/templates', '?format=text'],
      ['/dev/templates', '?format[]=text'],
      ['/dev/templates', '?format=text&format=html'],
      ['/dev/templates', '?format=%00'],
      ['/dev/templates', '?format=%3Cscript%3E'],
      ['/dev/templates', `?${'q'.repeat(10 * 1024)}`],
      ['/dev/inbox', '?limit=-1&__proto__[x]=1'],
      ['/dev/inbox', '?%zz'],
      ['/dev/inbox.json', '?limit=100000000'],
      ['/dev/inbox.json', '?callback=alert'],
      ['/dev/inbox/api/messages', '?limit=100000000'],
      ['/dev/inbox/api/messages', '?limit=-1&__proto__[x]=1'],
      ['/dev/inbox/api/messages', '?to[]=a&to[]=b'],
      ['/dev/inbox/api/messages', '?since=%00'],
      ['/dev/inbox/api/messages', `?to=${'q'.repeat(10 * 1024)}`],
      ['/dev/inbox/api/messages/latest', '?to=%E2%80%AEjane%40example.com'],
      ['/dev/inbox/api/messages/latest', '?constructor=1'],
      ['/dev/inbox', '?to=%00&tenant[]=x&template=%3Cscript%3E'],
    ];
    for (const [path, query] of queries)
      requests.push({
        endpoint: `GET ${path}`,
        name: `query ${query.slice(0, 40)}`,
        method: 'GET',
        url: `${path}${query}`,
        headers: {},
        isHtmlRoute: path === '/dev/templates' || path === '/dev/inbox',
      });
    // The inbox API refuses these before it reads or deletes anything (an empty filter would match
    // every message; the routes of one message take no parameter); any other path under
    // /dev/inbox/api is an unknown path (JSON, not the HTML page of a message named "api").
    const refused: [string, string, string][] = [
      ['GET', '/dev/inbox/api/messages', '?to='],
      ['GET', '/dev/inbox/api/messages/latest', '?tenant=%20'],
      ['GET', '/dev/inbox/api/messages/latest', '?project=&template='],
      ['GET', `/dev/inbox/api/messages/${capturedId}`, '?x=1'],
      ['DELETE', '/dev/inbox/api/messages', '?to='],
      ['DELETE', '/dev/inbox/api/messages', '?project=a&project=b'],
      ['DELETE', '/dev/inbox/api/messages', '?limit=1'],
      ['DELETE', '/dev/inbox/api/messages', '?since=%00'],
      ['DELETE', '/dev/inbox/api/messages', '?__proto__[to]=x'],
      ['DELETE', `/dev/inbox/api/messages/${unknownId('msg')}`, '?to=jane%40example.com'],
      ['GET', '/dev/inbox/api', ''],
      ['GET', '/dev/inbox/api/', '?to='],
      ['GET', '/dev/inbox/api/raw', ''],
      ['DELETE', '/dev/inbox/api', ''],
      ['POST', '/dev/inbox/api/messages/x/y', ''],
    ];
    for (const [method, path, query] of refused)
      requests.push({
        endpoint: `${method} ${path.replace(capturedId, ':id')}`,
        name: `query ${query.slice(0, 40)}`,
        method,
        url: `${path}${query}`,
        headers: {},
        mustRefuse: true,
      });
    // Served only to requests addressed to a loopback name (DNS rebinding): every other Host is refused.
    const hosts: [string, string, boolean][] = [
      ['another site', 'attacker.example', true],
      ['localhost as a subdomain of another site', 'localhost.attacker.example', true],
      ['a rebinding service', '127.0.0.1.nip.io', true],
      ['userinfo before localhost', 'evil@localhost', true],
      ['a CRLF after localhost', 'localhost\r\nX-Injected: 1', true],
      ['two ports', '127.0.0.1:80:80', true],
      ['an unclosed bracket', '[::1', true],
      ['a hexadecimal address', '0x7f000001', true],
      ['a short address', '127.1', true],
      ['upper case and a trailing dot', 'LOCALHOST.:3000', false],
      ['IPv6 loopback', '[::1]:3000', false],
    ];
    for (const [name, host, mustRefuse] of hosts)
      for (const path of [
        '/dev/templates',
        '/dev/templates/login-code',
        '/dev/templates/app.js',
        '/dev/inbox',
        '/dev/inbox.json',
        `/dev/inbox/${capturedId}/raw`,
        '/dev/inbox/app.js',
        '/dev/inbox/api/messages',
        `/dev/inbox/api/messages/${capturedId}`,
      ])
        requests.push({
          endpoint: `GET ${path.replace(capturedId, ':id')}`,
          name: `Host: ${name}`,
          method: 'GET',
          url: path,
          headers: { host },
          mustRefuse,
          isHtmlRoute:
            path === '/dev/templates' ||
            path === '/dev/templates/login-code' ||
            path === '/dev/inbox' ||
            path.endsWith('/raw'),
        });
    await expectEveryAnswerDocumented('dev pages', requests);
  });

  it("answers hostile bodies on the gallery's render and send routes with a documented 4xx (or a render), and sends nothing", async () => {
    const json = { 'content-type': JSON_TYPE };
    // Bodies of a project that does not exist: whatever else is wrong, nothing can be sent.
    const noProject = unknownId('prj');
    const renderBase = { data: { code: '482913' } };
    const sendBase = { data: { code: '482913' }, to: 'jane@example.com', project: noProject };
    // Every change to a project id is refused: 404 project_not_found (400 naming /project when
    // PostgreSQL could not store it, or when it is not a string).
    const projectField = (valid: string): FieldSpec[] => [
      { pointer: '/project', kind: 'exact', valid, limits: [64], extra: IDENTIFIER_ATTACKS },
    ];
    const requests: HostileRequest[] = [];
    for (const [action, base, project] of [
      ['render', renderBase, s.projectId],
      ['send', sendBase, s.projectId],
    ] as const) {
      const endpoint = `POST /dev/templates/:id/${action}`;
      const url = `/dev/templates/login-code/${action}`;
      const cases: BodyCase[] = [
        ...structuralBodies({ ...base }, '/data'),
        ...sizeBodies({ ...base }, undefined, ['/data']),
        ...contentTypeBodies(base),
        ...fieldBodies({ ...base, project }, projectField(project)),
      ];
      requests.push(...bodyRequests(endpoint, url, {}, cases));
      // Hostile template ids.
      for (const [name, id] of [
        ['an unknown template', 'nope'],
        ['a template id with markup', '%3Cscript%3E'],
        ['a 10 KB template id', 't'.repeat(10 * 1024)],
        ['an encoded NUL', 'login-code%00'],
        ['__proto__', '__proto__'],
      ])
        requests.push({
          endpoint,
          name: `template id: ${name}`,
          method: 'POST',
          url: `/dev/templates/${id}/${action}`,
          headers: json,
          body: JSON.stringify(base),
          mustRefuse: true,
        });
    }
    const before = await h.runtime.deps.db.selectFrom('messages').select('id').execute();
    await expectEveryAnswerDocumented('gallery bodies', requests);
    const after = await h.runtime.deps.db.selectFrom('messages').select('id').execute();
    expect(after.length, 'the gallery corpus sent nothing').toBe(before.length);
  });
});

// ---- raw sockets

describe('malformed HTTP on a real socket', () => {
  it('answers every malformed request in the envelope with X-Request-Id, never a 5xx', async () => {
    const devPage = (host: string) => `GET /dev/inbox.json HTTP/1.1\r\n${host}Connection: close\r\n\r\n`;
    const cases: RawCase[] = [
      ...malformedHttp({
        postPath: '/v1/send',
        getPath: '/healthz',
        extraHeaders: `Authorization: Bearer ${s.apiKey}\r\n`,
      }),
      // The dev pages' loopback rule, with Host headers only a raw request can send.
      { name: 'a dev page with an empty Host', chunks: [devPage('Host: \r\n')], mustRefuse: true },
      {
        name: 'a dev page without Host on HTTP/1.0',
        chunks: ['GET /dev/inbox.json HTTP/1.0\r\n\r\n'],
        mustRefuse: true,
      },
      {
        name: 'a dev page with another site first and localhost second',
        chunks: [devPage('Host: attacker.example\r\nHost: localhost\r\n')],
        mustRefuse: true,
      },
      {
        name: 'a dev page with an absolute-form URI to localhost',
        chunks: [
          'GET http://localhost/dev/inbox.json HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n',
        ],
        mustRefuse: true,
      },
    ];
    const started = Date.now();
    const failures: string[] = [];
    const seen: string[] = [];
    await runPool(cases, 8, async (c) => {
      const res = await rawExchange(port, c.chunks);
      seen.push(`${c.name} → ${res.status}`);
      tally.add('raw socket', res.status);
      const req: HostileRequest = {
        endpoint: 'raw socket',
        name: c.name,
        method: 'RAW',
        url: '',
        headers: {},
        ...(c.mustRefuse && { mustRefuse: true }),
      };
      const problems = answerProblems(req, res, errorCatalogue);
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
  it('does not spend an Idempotency-Key on a refused hostile body (5,000 nested arrays)', async () => {
    const key = 'hostile-deep-nesting-1';
    const headers = { ...bearer(s.apiKey), 'content-type': JSON_TYPE, 'idempotency-key': key };
    const deep = await app.inject({
      method: 'POST',
      url: '/v1/send',
      headers,
      payload: `{"templateId":"login-code","to":"deep@example.com","data":{"code":"1","x":${nestedArrays(5000)}}}`,
    });
    expect(deep.statusCode, deep.body).toBe(400);
    expect(deep.json().error.code).toBe('invalid_request');
    const body = JSON.stringify({ templateId: 'login-code', to: 'deep@example.com', data: { code: '1' } });
    const first = await app.inject({ method: 'POST', url: '/v1/send', headers, payload: body });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().idempotent).toBe(false);
    const again = await app.inject({ method: 'POST', url: '/v1/send', headers, payload: body });
    expect(again.json()).toMatchObject({ idempotent: true, messageId: first.json().messageId });
    acceptedIds.add(first.json().messageId);
  });

  it('is healthy afterwards: /healthz and /readyz answer 200 and a legitimate send is stored', async () => {
    for (const url of ['/healthz', '/readyz']) {
      expect((await app.inject({ method: 'GET', url })).statusCode).toBe(200);
      const overSocket = await rawExchange(port, [
        `GET ${url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      ]);
      expect(overSocket.status).toBe(200);
    }
    const res = await app.inject({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(s.apiKey), 'content-type': JSON_TYPE },
      payload: JSON.stringify({
        templateId: 'login-code',
        to: 'after-hostile@example.com',
        data: { code: '482913' },
      }),
    });
    expect(res.statusCode, res.body).toBe(200);
    acceptedIds.add(res.json().messageId);
    const row = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['to_email'])
      .where('id', '=', res.json().messageId)
      .executeTakeFirst();
    expect(row).toEqual({ to_email: 'after-hostile@example.com' });
  });

  it('delivers what it accepted with no header a hostile value made: no injected header (raw or RFC 2047-encoded), no line break in Subject or From, no bidi control in From', async () => {
    const rig = await startSinkWorker(h.runtime.deps);
    try {
      await rig.worker.drain();
      const problems: string[] = [];
      for (const mail of rig.sink.received) {
        const { headers, subject, from } = mail.parsed;
        for (const name of ['bcc', 'x-injected-ss'])
          if (headers.has(name)) problems.push(`${name} header in ${headers.get('x-mailsvc-message-id')}`);
        // A Subject keeps the caller's own text (template text fields take any text PostgreSQL
        // stores, right-to-left marks included); a From name is refused with one.
        for (const [what, value, refused] of [
          ['Subject', subject ?? '', /[\r\n]/],
          ['From name', from?.value[0]?.name ?? '', /[\r\n\u202a-\u202e\u2066-\u2069]/],
        ] as const)
          if (refused.test(value))
            problems.push(
              `${what} ${visible(JSON.stringify(value))} of ${headers.get('x-mailsvc-message-id')}`,
            );
      }
      expect(rig.sink.received.length).toBeGreaterThan(100);
      expect(problems.slice(0, 20), `${problems.length} problems`).toEqual([]);
    } finally {
      await rig.close();
    }
  });

  it('stored nothing hostile: one message per 200 answer, addresses and names without line breaks, controls or bidi', async () => {
    const db = h.runtime.deps.db;
    const messages = await db
      .selectFrom('messages')
      .select([
        'id',
        'template_id',
        'template_version',
        'to_email',
        'from_email',
        'from_name',
        'reply_to',
        'bulk_job_id',
      ])
      .where('environment_id', '=', s.environmentId)
      .execute();
    const problems: string[] = [];
    for (const m of messages)
      if (m.bulk_job_id !== null && acceptedJobIds.has(m.bulk_job_id)) acceptedIds.add(m.id);
    const jobs = await db
      .selectFrom('bulk_jobs')
      .select('id')
      .where('environment_id', '=', s.environmentId)
      .execute();
    for (const j of jobs)
      if (!acceptedJobIds.has(j.id)) problems.push(`bulk send ${j.id} stored without a 200 answer`);
    const templateIds = new Set(listTemplates().map((t) => t.id));
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
      if (!templateIds.has(m.template_id) || !/^[A-Za-z0-9._-]{1,32}$/.test(m.template_version))
        problems.push(
          `message ${m.id} template ${visible(JSON.stringify([m.template_id, m.template_version]))}`,
        );
    }
    const stored = new Set(messages.map((m) => m.id));
    for (const id of acceptedIds) if (!stored.has(id)) problems.push(`200 answer ${id} without a message`);

    const names = [
      ...(await db.selectFrom('tenants').select(['id', 'name']).execute()),
      ...(await db.selectFrom('projects').select(['id', 'name']).execute()),
      ...(await db.selectFrom('environments').select(['id', 'name']).execute()),
    ];
    for (const r of names)
      if (NAME_REFUSED.test(r.name) || r.name.length > 200 || r.name === '')
        problems.push(`${r.id} name ${visible(JSON.stringify(r.name))}`);
    const projects = await db
      .selectFrom('projects')
      .select(['id', 'display_name', 'from_name', 'from_email', 'reply_to', 'support_email'])
      .execute();
    const environments = await db
      .selectFrom('environments')
      .select(['id', 'from_name', 'from_email', 'reply_to'])
      .execute();
    const settings = [
      ...projects.map((r) => ({
        id: r.id,
        names: [r.from_name, r.display_name],
        addresses: [r.from_email, r.reply_to, r.support_email],
      })),
      ...environments.map((r) => ({ id: r.id, names: [r.from_name], addresses: [r.from_email, r.reply_to] })),
    ];
    for (const r of settings) {
      for (const value of r.names)
        if (value !== null && (NAME_REFUSED.test(value) || value.length > 120))
          problems.push(`${r.id} display name ${visible(JSON.stringify(value))}`);
      for (const value of r.addresses)
        if (value !== null && !STORED_ADDRESS.test(value))
          problems.push(`${r.id} address ${visible(JSON.stringify(value))}`);
    }
    for (const d of await db.selectFrom('sending_domains').select(['id', 'domain']).execute())
      if (!/^[a-z0-9.-]{1,253}$/.test(d.domain))
        problems.push(`${d.id} domain ${visible(JSON.stringify(d.domain))}`);
    for (const p of await db.selectFrom('plans').select(['id']).execute())
      if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(p.id)) problems.push(`plan ${visible(JSON.stringify(p.id))}`);

    const customFieldKey = new RegExp(CUSTOM_FIELD_KEY_PATTERN);
    for (const c of await db.selectFrom('contacts').select(['email', 'name', 'custom_fields']).execute()) {
      if (!STORED_ADDRESS.test(c.email)) problems.push(`contact ${visible(JSON.stringify(c.email))}`);
      if (c.name !== null && (NAME_REFUSED.test(c.name) || c.name.length > 200 || c.name === ''))
        problems.push(`contact ${c.email} name ${visible(JSON.stringify(c.name))}`);
      const fields = Object.entries(c.custom_fields);
      if (fields.length > 50) problems.push(`contact ${c.email}: ${fields.length} custom fields`);
      for (const [key, value] of fields)
        if (!customFieldKey.test(key) || value === null || (typeof value === 'string' && value.length > 1000))
          problems.push(`contact ${c.email} custom field ${visible(JSON.stringify(key))}`);
    }

    const slug = new RegExp(GROUP_SLUG_PATTERN);
    for (const g of await db.selectFrom('contact_groups').select(['slug', 'name']).execute()) {
      if (!slug.test(g.slug)) problems.push(`group slug ${visible(JSON.stringify(g.slug))}`);
      if (NAME_REFUSED.test(g.name) || g.name.length > 100 || g.name.trim() === '')
        problems.push(`group ${g.slug} name ${visible(JSON.stringify(g.name))}`);
    }

    expect(messages.length).toBeGreaterThan(1);
    expect(problems).toEqual([]);
  });

  it('ran a corpus of at least 500 requests', () => {
    expect(tally.total).toBeGreaterThanOrEqual(500);
  });
});
