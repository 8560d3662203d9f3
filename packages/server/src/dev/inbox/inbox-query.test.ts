import { describe, expect, it } from 'vitest';
import type { CapturedEntry } from '../../delivery/transports/capture.js';
import { API_FILTERS, matchesFilter, parseApiQuery, parsePageQuery } from './inbox-query.js';

const entry = (over: Partial<CapturedEntry> = {}): CapturedEntry => ({
  messageId: 'msg_01JZ0000000000000000000000',
  capturedAt: '2026-11-22T10:15:31.000Z',
  to: 'ada@example.com',
  templateId: 'login-code',
  subject: 'Your login code',
  tenantId: 'ten_DEMO',
  projectId: 'prj_DEMOAPP',
  ...over,
});

describe('parseApiQuery', () => {
  it('refuses an empty or blank to, template, tenant or project: it would match every message', () => {
    for (const key of ['to', 'template', 'tenant', 'project'])
      for (const value of ['', ' ', '\t '])
        expect(parseApiQuery({ [key]: value }, API_FILTERS), `${key}=${JSON.stringify(value)}`).toEqual({
          ok: false,
          problems: [{ path: `/query/${key}`, message: 'must not be empty' }],
        });
  });

  it('refuses a template that names none (auth/ or /): it would match, or delete, every message', () => {
    for (const value of ['auth/', '/', ' billing/ '])
      expect(parseApiQuery({ template: value }, API_FILTERS), value).toEqual({
        ok: false,
        problems: [{ path: '/query/template', message: 'must name a template, such as login-code' }],
      });
    expect(parseApiQuery({ template: 'auth/login-code' }, API_FILTERS)).toMatchObject({ ok: true });
  });

  it('reads project like the other filters', () => {
    expect(parseApiQuery({ project: 'prj_A', to: 'a@example.com' }, API_FILTERS)).toEqual({
      ok: true,
      filter: { project: 'prj_A', to: 'a@example.com' },
      limit: 50,
    });
    expect(parseApiQuery({ project: ['prj_A', 'prj_B'] }, API_FILTERS)).toEqual({
      ok: false,
      problems: [{ path: '/query/project', message: 'must be given once' }],
    });
  });

  it('says a route that takes no parameter takes none', () => {
    expect(parseApiQuery({ x: '1' }, [])).toEqual({
      ok: false,
      problems: [{ path: '/query/x', message: 'is not a parameter of this route (it takes none)' }],
    });
    expect(parseApiQuery({}, [])).toEqual({ ok: true, filter: {}, limit: 50 });
  });
});

describe('matchesFilter', () => {
  it('matches a project id in any case, and never an entry without one', () => {
    expect(matchesFilter({ project: 'PRJ_demoapp' })(entry())).toBe(true);
    expect(matchesFilter({ project: 'prj_OTHER' })(entry())).toBe(false);
    expect(matchesFilter({ project: 'prj_DEMOAPP' })(entry({ projectId: undefined }))).toBe(false);
  });
});

describe('parsePageQuery', () => {
  it('reads project, and ignores an empty one', () => {
    expect(parsePageQuery({ project: ' prj_A ', tenant: '' })).toEqual({ project: 'prj_A' });
  });
});
