// POST /v1/templates/list (the console's Templates page): every published template of the
// catalogue, by group then id, with its versions; the example data of each is what a send of it
// takes (every one accepted); a category filter.
import { listTemplates as catalogue, publishedVersions } from '@mailsvc/templates';
import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 10_000 });
});
afterAll(() => h.close());

interface Info {
  templateId: string;
  category: string;
  versions: string[];
  latestVersion: string;
  exampleData: Record<string, unknown>;
}

describe('POST /v1/templates/list', () => {
  it('lists every template with a published version, and each example is a send it accepts', async () => {
    const res = await postJson(h, s.apiKey, '/v1/templates/list', {});
    expect(res.statusCode, res.body).toBe(200);
    const templates = res.json().templates as Info[];
    const published = catalogue().filter((t) => publishedVersions(t).length > 0);
    expect(templates.map((t) => t.templateId).sort()).toEqual(published.map((t) => t.id).sort());
    const welcome = templates.find((t) => t.templateId === 'welcome')!;
    expect([welcome.versions, welcome.latestVersion]).toEqual([['v1', 'v2'], 'v2']);
    for (const t of templates) {
      const sent = await postJson(h, s.apiKey, '/v1/send', {
        templateId: t.templateId,
        to: `example-${t.templateId}@example.com`,
        data: t.exampleData,
      });
      expect(sent.statusCode, `${t.templateId}: ${sent.body}`).toBe(200);
    }
  });

  it('lists one category', async () => {
    const res = await postJson(h, s.apiKey, '/v1/templates/list', { category: 'notification' });
    const templates = res.json().templates as Info[];
    expect(templates.length).toBeGreaterThan(3);
    expect(new Set(templates.map((t) => t.category))).toEqual(new Set(['notification']));
  });
});

runCommonRouteTests('listTemplates', () => h);
