// The API as a client generated from docs/openapi.json by tools nobody here wrote sees it:
// openapi-typescript's types (openapi-client/paths.d.ts, kept fresh here) type openapi-fetch, which
// drives every operation; every answer is checked against the document with Ajv (JSON Schema
// 2020-12, as OpenAPI 3.1 says). And the document and the service agree on which bodies are valid:
// each example with one property left out, or with the cross-field rules broken, is refused with
// 400 invalid_request exactly when the document says it is invalid.
import fs from 'node:fs';
import type {
  BulkSendRequest,
  GetBulkSendRequest,
  ListContactsRequest,
  RelayEventRequest,
  SendRequest,
  UpsertContactRequest,
} from '@mailsvc/contract/api';
import { operations } from '@mailsvc/contract/api';
import { bearer, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import createClient from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { DOCUMENT, renderOpenApiTypes } from '../../../scripts/openapi-types.mjs';
import type { paths } from './openapi-client/paths.js';

type JsonBody<P extends keyof paths> = paths[P] extends {
  post: { requestBody?: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

type Json = Record<string, unknown>;
const document = JSON.parse(fs.readFileSync(DOCUMENT, 'utf8')) as {
  paths: Record<string, Record<string, Json>>;
};

let h: Harness;
let s: Scope;
let intakeSecret: string;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(document, 'openapi');

const pointer = (...parts: string[]) =>
  `openapi#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

/** openapi-fetch's fetch: the request, answered by the app in process. */
async function injectFetch(input: Request): Promise<Response> {
  const url = new URL(input.url);
  const body = input.method === 'GET' ? undefined : await input.text();
  const headers = Object.fromEntries(input.headers.entries());
  if (url.pathname === '/v1/events/intake' && body !== undefined) {
    const id = `msg_${Math.random().toString(36).slice(2)}`;
    // Signed now: the intake checks the timestamp against the wall clock.
    const at = new Date();
    Object.assign(headers, {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(intakeSecret).sign(id, at, body),
    });
  }
  const res = await h.request({
    method: input.method as 'POST',
    url: url.pathname + url.search,
    headers,
    ...(body !== undefined && { payload: body }),
  });
  return new Response(res.statusCode === 204 ? null : res.body, {
    status: res.statusCode,
    headers: res.headers as Record<string, string>,
  });
}

let client: ReturnType<typeof createClient<paths>>;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 100_000 });
  intakeSecret = (await h.admin('events.create-secret', { environment: s.environmentId })).secret.secret;
  client = createClient<paths>({
    baseUrl: 'http://mailsvc.test',
    fetch: injectFetch,
    headers: bearer(s.apiKey),
  });
});
afterAll(() => h?.close());

/** The example body of an operation, in the test scope: its project and environment. */
function exampleBody(operationId: string): Json | undefined {
  const op = operations[operationId as keyof typeof operations] as { example?: { body?: unknown } };
  const body = op.example?.body as Json | undefined;
  if (!body) return undefined;
  const local = structuredClone(body);
  if ('projectId' in local) local.projectId = s.projectId;
  if ('environmentId' in local) local.environmentId = s.environmentId;
  return local;
}

/** The document's verdict on a request body. */
function isValidBody(path: string, method: string, body: unknown): boolean {
  const validate = ajv.getSchema(
    pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema'),
  )!;
  return validate(body) as boolean;
}

/** Problems of an answer against the document: a documented status, a body its schema takes. */
function answerProblems(path: string, method: string, status: number, body: unknown): string[] {
  const responses = document.paths[path]![method]!.responses as Record<string, Json>;
  if (!responses[String(status)]) return [`status ${status} is not documented`];
  const validate = ajv.getSchema(
    pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema'),
  )!;
  return validate(body) ? [] : [`body fails the documented schema: ${ajv.errorsText(validate.errors)}`];
}

type Call = (body: Json | undefined) => Promise<{ response: Response; data?: unknown; error?: unknown }>;

// Every operation through the typed client (the example bodies are the contract's, checked
// against the document below).
const calls: Record<string, Call> = {
  '/v1/quota': () => client.GET('/v1/quota'),
  '/v1/templates/list': (b) =>
    client.POST('/v1/templates/list', { body: b as JsonBody<'/v1/templates/list'> }),
  '/v1/stats/daily': (b) => client.POST('/v1/stats/daily', { body: b as JsonBody<'/v1/stats/daily'> }),
  '/v1/send': (b) => client.POST('/v1/send', { body: b as JsonBody<'/v1/send'> }),
  '/v1/recipients/status': (b) =>
    client.POST('/v1/recipients/status', { body: b as JsonBody<'/v1/recipients/status'> }),
  '/v1/recipients/resubscribe': (b) =>
    client.POST('/v1/recipients/resubscribe', { body: b as JsonBody<'/v1/recipients/resubscribe'> }),
  '/v1/messages/get': (b) => client.POST('/v1/messages/get', { body: b as JsonBody<'/v1/messages/get'> }),
  '/v1/messages/list': (b) => client.POST('/v1/messages/list', { body: b as JsonBody<'/v1/messages/list'> }),
  '/v1/messages/cancel': (b) =>
    client.POST('/v1/messages/cancel', { body: b as JsonBody<'/v1/messages/cancel'> }),
  '/v1/messages/reschedule': (b) =>
    client.POST('/v1/messages/reschedule', { body: b as JsonBody<'/v1/messages/reschedule'> }),
  '/v1/send/batch': (b) => client.POST('/v1/send/batch', { body: b as JsonBody<'/v1/send/batch'> }),
  '/v1/audit/list': (b) => client.POST('/v1/audit/list', { body: b as JsonBody<'/v1/audit/list'> }),
  '/v1/suppressions/list': (b) =>
    client.POST('/v1/suppressions/list', { body: b as JsonBody<'/v1/suppressions/list'> }),
  '/v1/suppressions/add': (b) =>
    client.POST('/v1/suppressions/add', { body: b as JsonBody<'/v1/suppressions/add'> }),
  '/v1/suppressions/remove': (b) =>
    client.POST('/v1/suppressions/remove', { body: b as JsonBody<'/v1/suppressions/remove'> }),
  '/v1/webhooks/create': (b) =>
    client.POST('/v1/webhooks/create', { body: b as JsonBody<'/v1/webhooks/create'> }),
  '/v1/webhooks/list': (b) => client.POST('/v1/webhooks/list', { body: b as JsonBody<'/v1/webhooks/list'> }),
  '/v1/webhooks/get': (b) => client.POST('/v1/webhooks/get', { body: b as JsonBody<'/v1/webhooks/get'> }),
  '/v1/webhooks/update': (b) =>
    client.POST('/v1/webhooks/update', { body: b as JsonBody<'/v1/webhooks/update'> }),
  '/v1/webhooks/delete': (b) =>
    client.POST('/v1/webhooks/delete', { body: b as JsonBody<'/v1/webhooks/delete'> }),
  '/v1/webhooks/rotate-secret': (b) =>
    client.POST('/v1/webhooks/rotate-secret', { body: b as JsonBody<'/v1/webhooks/rotate-secret'> }),
  '/v1/webhooks/test': (b) => client.POST('/v1/webhooks/test', { body: b as JsonBody<'/v1/webhooks/test'> }),
  '/v1/webhooks/deliveries/list': (b) =>
    client.POST('/v1/webhooks/deliveries/list', { body: b as JsonBody<'/v1/webhooks/deliveries/list'> }),
  '/v1/webhooks/deliveries/replay': (b) =>
    client.POST('/v1/webhooks/deliveries/replay', { body: b as JsonBody<'/v1/webhooks/deliveries/replay'> }),
  '/v1/domains/add': (b) => client.POST('/v1/domains/add', { body: b as JsonBody<'/v1/domains/add'> }),
  '/v1/domains/list': (b) => client.POST('/v1/domains/list', { body: b as JsonBody<'/v1/domains/list'> }),
  '/v1/domains/get': (b) => client.POST('/v1/domains/get', { body: b as JsonBody<'/v1/domains/get'> }),
  '/v1/domains/verify': (b) =>
    client.POST('/v1/domains/verify', { body: b as JsonBody<'/v1/domains/verify'> }),
  '/v1/domains/rotate-dkim': (b) =>
    client.POST('/v1/domains/rotate-dkim', { body: b as JsonBody<'/v1/domains/rotate-dkim'> }),
  '/v1/domains/delete': (b) =>
    client.POST('/v1/domains/delete', { body: b as JsonBody<'/v1/domains/delete'> }),
  '/v1/keys/create': (b) => client.POST('/v1/keys/create', { body: b as JsonBody<'/v1/keys/create'> }),
  '/v1/keys/list': (b) => client.POST('/v1/keys/list', { body: b as JsonBody<'/v1/keys/list'> }),
  '/v1/keys/revoke': (b) => client.POST('/v1/keys/revoke', { body: b as JsonBody<'/v1/keys/revoke'> }),
  '/v1/events/intake': (b) =>
    client.POST('/v1/events/intake', { body: b as JsonBody<'/v1/events/intake'>, headers: {} }),
  '/v1/events/ses': (b) => client.POST('/v1/events/ses', { body: b as JsonBody<'/v1/events/ses'> }),
  '/v1/contacts/upsert': (b) =>
    client.POST('/v1/contacts/upsert', { body: b as JsonBody<'/v1/contacts/upsert'> }),
  '/v1/contacts/upsert-many': (b) =>
    client.POST('/v1/contacts/upsert-many', { body: b as JsonBody<'/v1/contacts/upsert-many'> }),
  '/v1/contacts/get': (b) => client.POST('/v1/contacts/get', { body: b as JsonBody<'/v1/contacts/get'> }),
  '/v1/contacts/list': (b) => client.POST('/v1/contacts/list', { body: b as JsonBody<'/v1/contacts/list'> }),
  '/v1/contacts/groups/upsert': (b) =>
    client.POST('/v1/contacts/groups/upsert', { body: b as JsonBody<'/v1/contacts/groups/upsert'> }),
  '/v1/contacts/groups/list': (b) =>
    client.POST('/v1/contacts/groups/list', { body: b as JsonBody<'/v1/contacts/groups/list'> }),
  '/v1/contacts/groups/delete': (b) =>
    client.POST('/v1/contacts/groups/delete', { body: b as JsonBody<'/v1/contacts/groups/delete'> }),
  '/v1/contacts/groups/add': (b) =>
    client.POST('/v1/contacts/groups/add', { body: b as JsonBody<'/v1/contacts/groups/add'> }),
  '/v1/contacts/groups/remove': (b) =>
    client.POST('/v1/contacts/groups/remove', { body: b as JsonBody<'/v1/contacts/groups/remove'> }),
  '/v1/contacts/send': (b) => client.POST('/v1/contacts/send', { body: b as JsonBody<'/v1/contacts/send'> }),
  '/v1/contacts/send/dry-run': (b) =>
    client.POST('/v1/contacts/send/dry-run', { body: b as JsonBody<'/v1/contacts/send/dry-run'> }),
  '/v1/contacts/send/get': (b) =>
    client.POST('/v1/contacts/send/get', { body: b as JsonBody<'/v1/contacts/send/get'> }),
};

const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ path, method, operationId: String(op.operationId) })),
);

describe('a client generated from docs/openapi.json', () => {
  it('is typed by openapi-typescript output that is up to date (npm run docs), which every contract body fits', async () => {
    // Checked by the compiler (npm run typecheck): a body the contract's types allow is one the
    // generated client takes.
    expectTypeOf<SendRequest>().toMatchTypeOf<JsonBody<'/v1/send'>>();
    expectTypeOf<UpsertContactRequest>().toMatchTypeOf<JsonBody<'/v1/contacts/upsert'>>();
    expectTypeOf<ListContactsRequest>().toMatchTypeOf<JsonBody<'/v1/contacts/list'>>();
    expectTypeOf<BulkSendRequest>().toMatchTypeOf<JsonBody<'/v1/contacts/send'>>();
    expectTypeOf<GetBulkSendRequest>().toMatchTypeOf<JsonBody<'/v1/contacts/send/get'>>();
    expectTypeOf<RelayEventRequest>().toMatchTypeOf<JsonBody<'/v1/events/intake'>>();
    const committed = fs.readFileSync(new URL('./openapi-client/paths.d.ts', import.meta.url), 'utf8');
    expect(committed).toBe(await renderOpenApiTypes());
  });

  it('reaches every documented operation with its example, and every answer is what the document says', async () => {
    expect(Object.keys(calls).sort()).toEqual(documented.map((d) => d.path).sort());
    // Contacts and a group first, so that the examples naming them find them; the group is
    // deleted last; ids an example names are the ones the earlier answers gave.
    await calls['/v1/contacts/upsert-many']!(exampleBody('upsertContacts'));
    const jane = (await calls['/v1/contacts/get']!({ emailOrContactId: 'jane@example.com' })).data as {
      contact: { id: string };
    };
    const ids: Json = {};
    // the reschedule example moves a scheduled message (the send example's is queued, and canceled
    // by the cancel example)
    const scheduled = await calls['/v1/send']!({
      templateId: 'mention',
      to: 'jane@example.com',
      data: {},
      scheduledAt: '2026-11-23T09:00:00Z',
    });
    const scheduledId = (scheduled.data as { messageId: string }).messageId;
    const order = [...documented].sort(
      (a, b) => Number(a.path.endsWith('/delete')) - Number(b.path.endsWith('/delete')),
    );
    const problems: string[] = [];
    const statuses: string[] = [];
    for (const { path, method, operationId } of order) {
      const body = exampleBody(operationId);
      if (body && 'messageId' in body && ids.messageId) body.messageId = ids.messageId;
      if (body && path === '/v1/messages/reschedule') body.messageId = scheduledId;
      if (body && 'jobId' in body && ids.jobId) body.jobId = ids.jobId;
      if (body && 'keyId' in body && ids.keyId) body.keyId = ids.keyId;
      if (body && 'endpointId' in body && ids.endpointId) body.endpointId = ids.endpointId;
      if (body && 'domainId' in body && ids.domainId) body.domainId = ids.domainId;
      // a key rotates on a verified domain only: the operator's override stands in for DNS here
      if (path === '/v1/domains/rotate-dkim' && ids.domainId)
        await h.admin('domains.set-status', { domain: ids.domainId, status: 'verified' });
      if (body && Array.isArray(body.contactIds))
        body.contactIds = body.contactIds.map((c: string) => (c.startsWith('ct_') ? jane.contact.id : c));
      if (body !== undefined && !isValidBody(path, method, body))
        problems.push(`${path}: its own example fails the documented request schema`);
      const { response, data, error } = await calls[path]!(body);
      const answer = data ?? error;
      for (const key of ['messageId', 'jobId'])
        if (data && typeof (data as Json)[key] === 'string') ids[key] = (data as Json)[key];
      // the key the create example made is the one the revoke example revokes
      if (path === '/v1/keys/create' && data) ids.keyId = (data as { key: { keyId: string } }).key.keyId;
      // the endpoint the create example made is the one the other webhook examples name
      if (path === '/v1/webhooks/create' && data)
        ids.endpointId = (data as { endpoint: { endpointId: string } }).endpoint.endpointId;
      if (path === '/v1/domains/add' && data)
        ids.domainId = (data as { domain: { domainId: string } }).domain.domainId;
      statuses.push(`${path} ${response.status} ${JSON.stringify(error ?? '').slice(0, 200)}`);
      for (const p of answerProblems(path, method, response.status, answer)) problems.push(`${path}: ${p}`);
    }
    expect(problems).toEqual([]);
    // Most examples succeed in the test scope; the rest are documented refusals.
    expect(
      statuses.filter((x) => / 200 /.test(x)),
      statuses.join('\n'),
    ).toHaveLength(documented.length - 1);
  });

  it('agrees with the service on which bodies are valid: each example without one property, and the cross-field rules broken', async () => {
    const cases: { path: string; method: string; name: string; body: Json }[] = [];
    for (const { path, method, operationId } of documented) {
      const body = exampleBody(operationId);
      if (!body) continue;
      for (const key of Object.keys(body)) {
        const { [key]: _, ...rest } = body;
        cases.push({ path, method, name: `without ${key}`, body: rest });
      }
    }
    const bulk = exampleBody('sendToContacts')!;
    const { projectId: _p, environmentId: _e, ...unscoped } = bulk;
    for (const path of ['/v1/contacts/send', '/v1/contacts/send/dry-run']) {
      cases.push(
        { path, method: 'post', name: 'templateData and data', body: { ...bulk, data: {} } },
        {
          path,
          method: 'post',
          name: 'data without scope',
          body: { ...unscoped, templateData: undefined, data: {} },
        },
        { path, method: 'post', name: 'no recipients', body: { ...bulk, groupSlug: undefined } },
        {
          path,
          method: 'post',
          name: 'to alone',
          body: { ...bulk, groupSlug: undefined, to: 'jane@example.com' },
        },
      );
    }
    const intake = exampleBody('ingestRelayEvent')!;
    cases.push(
      {
        path: '/v1/events/intake',
        method: 'post',
        name: 'bounced without bounce',
        body: { ...intake, bounce: undefined },
      },
      {
        path: '/v1/events/intake',
        method: 'post',
        name: 'delivered without bounce',
        body: { ...intake, type: 'delivered', bounce: undefined },
      },
      {
        path: '/v1/events/intake',
        method: 'post',
        name: 'by messageIdHeader',
        body: {
          ...intake,
          messageId: undefined,
          messageIdHeader: '<msg_01M81C1XJB7Y4KHB01G4B1P0M5@mailsvc.test>',
        },
      },
    );
    const disagreements: string[] = [];
    let refused = 0;
    for (const c of cases) {
      const body = JSON.parse(JSON.stringify(c.body)) as Json;
      const isValid = isValidBody(c.path, c.method, body);
      const { response, error } = await calls[c.path]!(body);
      const answer = (error ?? {}) as { error?: { code?: string } };
      // The signature is checked before the body (it names the environment whose secret signs).
      if (c.path === '/v1/events/intake' && response.status === 401 && !('environmentId' in body)) continue;
      const isRefused = response.status === 400 && answer.error?.code === 'invalid_request';
      if (isRefused) refused++;
      if (isValid === isRefused)
        disagreements.push(
          `${c.path} ${c.name}: the document says ${isValid ? 'valid' : 'invalid'}, the service answered ${response.status} ${answer.error?.code ?? ''}`,
        );
    }
    expect(disagreements).toEqual([]);
    expect(refused).toBeGreaterThan(10);
  });
});
