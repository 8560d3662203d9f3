import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';
import { devRoutes } from '../src/api/routes/dev.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('GET /dev/templates', () => {
  it('shows every template rendered from its fixture, as HTML or text', async () => {
    const app = await buildApp(h.runtime.deps, { extraRoutes: [devRoutes] });
    try {
      const html = await app.inject({ method: 'GET', url: '/dev/templates' });
      expect(html.statusCode).toBe(200);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      expect(html.body).toContain('<h1>Templates (51)</h1>');
      expect(html.body.match(/<iframe sandbox /g)).toHaveLength(53); // 51 v1 + welcome v2 + activity-digest v2 draft
      const text = await app.inject({ method: 'GET', url: '/dev/templates?format=text' });
      expect(text.body.match(/<pre>/g)).toHaveLength(53);
      expect(text.body).toContain('POST /auth/login-code');
    } finally {
      await app.close();
    }
  });
});
