// The contract as documents: GET /openapi.json is valid OpenAPI 3.1 and lists every built /v1
// operation with its request, response and error schemas; the catalogue, the OpenAPI document and
// docs/errors.md agree in both directions; /docs renders from this server's assets only; and a
// route that answers an error code its contract does not declare is caught.
import fs from 'node:fs';
import path from 'node:path';
import { type Operation, operations } from '@mailsvc/contract/api';
import { coreErrors } from '@mailsvc/contract/errors';
import { createHarness, type Harness } from '@mailsvc/testkit/harness';
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';
import { DOCS_DIR } from '../src/cli/docs.js';
import { ApiError, sourcesOf } from '../src/errors.js';

let h: Harness;
// biome-ignore lint/suspicious/noExplicitAny: the document is read loosely
let doc: any;

beforeAll(async () => {
  h = await createHarness();
  const res = await h.request({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(() => h.close());

const built = Object.entries(operations) as [string, Operation][];

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('lists every built /v1 operation, and nothing else, under its operationId', () => {
    const listed = Object.entries(doc.paths).flatMap(([p, methods]) =>
      Object.entries(methods as object).map(
        ([m, o]) => `${m.toUpperCase()} ${p} ${(o as { operationId: string }).operationId}`,
      ),
    );
    expect(listed.sort()).toEqual(built.map(([id, op]) => `${op.method} ${op.path} ${id}`).sort());
  });

  it('gives each operation its request and response schemas, an example, and per status the error codes it declares', () => {
    for (const [id, op] of built) {
      const o = doc.paths[op.path][op.method.toLowerCase()];
      expect(o.responses['200'].content['application/json'].schema, id).toBeDefined();
      expect(o.responses['200'].content['application/json'].example, id).toEqual(op.example?.response);
      if (op.body) expect(o.requestBody.content['application/json'].example, id).toEqual(op.example?.body);
      const documented = Object.entries(o.responses)
        .filter(([status]) => status !== '200')
        .flatMap(([status, r]) =>
          Object.keys(
            (r as { content: { 'application/json': { examples: object } } }).content['application/json']
              .examples,
          ).map((code) => `${status} ${code}`),
        );
      expect(documented.sort(), id).toEqual(
        [...new Set(op.errors)].map((code) => `${coreErrors[code].status} ${code}`).sort(),
      );
    }
  });

  it('is what docs/openapi.json holds (npm run docs)', async () => {
    const { renderOpenApiDocument } = await import('../src/api/openapi.js');
    const { loadConfig } = await import('../src/config.js');
    expect(fs.readFileSync(path.join(DOCS_DIR, 'openapi.json'), 'utf8')).toBe(
      await renderOpenApiDocument(loadConfig({})),
    );
  });
});

describe('the error catalogue, the OpenAPI document and docs/errors.md', () => {
  const errorsDoc = fs.readFileSync(path.join(DOCS_DIR, 'errors.md'), 'utf8');
  const docCodes = [...errorsDoc.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => `${m[1]} ${m[2]}`);
  const catalogue = Object.entries(coreErrors).map(([code, e]) => `${e.status} ${code}`);

  it('agree in both directions: the same codes with the same statuses everywhere', () => {
    expect(docCodes.sort()).toEqual([...catalogue].sort());
    expect([...doc.components.schemas.ErrorCode.enum].sort()).toEqual(Object.keys(coreErrors).sort());
    for (const [, methods] of Object.entries(doc.paths)) {
      for (const o of Object.values(methods as object)) {
        for (const [status, r] of Object.entries((o as { responses: object }).responses)) {
          if (status === '200') continue;
          for (const code of Object.keys(
            (r as { content: { 'application/json': { examples: object } } }).content['application/json']
              .examples,
          ))
            expect(catalogue, `${status} ${code}`).toContain(`${status} ${code}`);
        }
      }
    }
  });

  it('lists no code that nothing answers', () => {
    for (const code of Object.keys(coreErrors))
      expect(sourcesOf(code as keyof typeof coreErrors), code).not.toEqual([]);
  });
});

describe('GET /docs', () => {
  it('renders the reference from this server only: no asset or connection from elsewhere', async () => {
    expect((await h.request({ method: 'GET', url: '/docs' })).headers.location).toBe('/docs/');
    const page = await h.request({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('mailsvc API reference');
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.filter((s) => /^(https?:)?\/\//.test(s))).toEqual([]);
    expect(sources.length).toBeGreaterThan(0);
    for (const local of sources) {
      const asset = await h.request({ method: 'GET', url: new URL(local, 'http://x/docs/').pathname });
      expect(asset.statusCode, local).toBe(200);
    }
  });
});

describe('declared errors', () => {
  it('reports a route that answers a code its contract does not declare', async () => {
    const seen: string[] = [];
    const app = await buildApp(h.runtime.deps, {
      onUndeclaredError: (route, code) => seen.push(`${route} ${code}`),
      extraRoutes: [
        (a) =>
          a.get('/v1/test-undeclared', {
            config: { declaredErrors: new Set(['internal'] as const) },
            handler: async () => {
              throw new ApiError('conflict', 'not declared');
            },
          }),
      ],
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/v1/test-undeclared' });
      expect(res.statusCode).toBe(409);
      expect(seen).toEqual(['GET /v1/test-undeclared conflict']);
    } finally {
      await app.close();
    }
  });
});
