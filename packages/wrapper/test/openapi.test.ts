import { getTemplate, jsonSchemaFor, listTemplates } from '@mailsvc/templates';
import { describe, expect, it } from 'vitest';
import { wrapperErrors } from '../src/errors.js';
import { buildOpenApi } from '../src/openapi.js';
import { call, testRouter } from './helpers.js';

type Doc = {
  paths: Record<
    string,
    { post: { operationId: string; requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
  >;
  components: { schemas: Record<string, { properties: { data: { $ref: string } } }> };
};

const resolve = (doc: Doc, ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')]!;

describe('OpenAPI', () => {
  it('has 52 operations with the catalogue operationIds and each route data schema', () => {
    const doc = buildOpenApi() as unknown as Doc;
    const paths = Object.keys(doc.paths);
    expect(paths).toHaveLength(52);
    for (const t of listTemplates()) {
      const op = doc.paths[t.routePath]!.post;
      expect(op.operationId).toBe(t.operationName);
      const envelope = resolve(doc, op.requestBody.content['application/json']!.schema.$ref);
      const data = resolve(doc, envelope.properties.data.$ref);
      const { $id: _id, ...expected } = jsonSchemaFor(getTemplate(t.id, 'v1').version) as Record<
        string,
        unknown
      >;
      expect(data).toEqual(expected);
    }
    expect(new Set(Object.values(doc.paths).map((p) => p.post.operationId)).size).toBe(52);
  });

  it('is served at GET /openapi.json', async () => {
    const { router } = testRouter({});
    const res = await call(router, '/openapi.json', { method: 'GET' });
    router.close();
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ openapi: '3.1.0', info: { version: '1.0.0' } });
    expect(Object.keys(res.json().paths)).toContain('/auth/login-code');
  });
});

describe('the README', () => {
  it('lists every wrapper error code with its status', async () => {
    const fs = await import('node:fs');
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const [code, { status }] of Object.entries(wrapperErrors))
      expect(readme, code).toContain(`| \`${code}\` | ${status} |`);
  });

  it('lists every route with its operationId', async () => {
    const fs = await import('node:fs');
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const t of listTemplates())
      expect(readme).toContain(`| \`POST ${t.routePath}\` | \`${t.operationName}\` |`);
  });
  it("lists every route's required data fields, as its v1 schema requires them", async () => {
    const fs = await import('node:fs');
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    type Node = { required?: string[]; properties?: Record<string, Node> };
    for (const t of listTemplates()) {
      const schema = jsonSchemaFor(getTemplate(t.id, 'v1').version) as Node;
      const paths = (schema.required ?? []).flatMap((name) => {
        const inner = schema.properties?.[name]?.required;
        return inner ? inner.map((key) => `${name}.${key}`) : [name];
      });
      const cell = paths.map((p) => `\`${p}\``).join(', ') || '—';
      expect(readme, t.id).toContain(`| \`${t.id}\` | ${t.category} | ${cell} |`);
    }
  });
});
