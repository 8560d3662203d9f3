import { describe, expect, it } from 'vitest';
import { findJsonInputProblems, MAX_JSON_DEPTH, parseJsonBody } from './json-input.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('parseJsonBody', () => {
  it('accepts ordinary JSON, including emoji and every other well-formed string', () => {
    expect(parseJsonBody('{"a":"x 🚀 é \\ud83d\\ude80","b":[1,{"c":null}]}')).toEqual({
      ok: true,
      value: { a: 'x 🚀 é 🚀', b: [1, { c: null }] },
    });
  });

  it('refuses NUL, given raw or escaped, with the path of the value', () => {
    expect(parseJsonBody('{"data":{"intro":"x\\u0000"}}')).toEqual({
      ok: false,
      reason: 'input',
      problems: [{ path: '/data/intro', message: expect.stringContaining('NUL') }],
    });
  });

  it('refuses lone surrogates (high or low) and names every such field', () => {
    const r = parseJsonBody('{"a":"\\ud800","b":["ok","\\udc00x"],"c":"\\ud83d\\ude80"}');
    expect(r).toMatchObject({ ok: false, reason: 'input' });
    expect(!r.ok && r.problems.map((p) => p.path)).toEqual(['/a', '/b/1']);
  });

  it('refuses a property name PostgreSQL cannot store', () => {
    const r = parseJsonBody('{"data":{"a\\u0000b":1}}');
    expect(r).toMatchObject({ ok: false, reason: 'input' });
    expect(!r.ok && r.problems[0]!.message).toContain('property name');
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels, however deep, without overflowing the stack`, () => {
    expect(parseJsonBody(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    for (const depth of [MAX_JSON_DEPTH + 1, 5_000, 100_000]) {
      const r = parseJsonBody(nested(depth));
      expect(r).toMatchObject({ ok: false, reason: 'input' });
      expect(!r.ok && r.problems[0]!.message).toContain('deeper');
    }
    const objects = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    expect(parseJsonBody(objects)).toMatchObject({ ok: false, reason: 'input' });
  });

  it('refuses prototype-poisoning keys and broken JSON as syntax', () => {
    for (const poisoned of ['{"__proto__":{"x":1}}', '{"a":{"constructor":{"prototype":{"x":1}}}}']) {
      expect(parseJsonBody(poisoned)).toEqual({
        ok: false,
        reason: 'syntax',
        problems: [{ path: '/', message: 'must not have __proto__ or constructor.prototype keys' }],
      });
    }
    expect(parseJsonBody('{"a": ')).toEqual({
      ok: false,
      reason: 'syntax',
      problems: [{ path: '/', message: 'is not valid JSON' }],
    });
    expect(parseJsonBody('  ')).toMatchObject({ ok: false, reason: 'empty' });
  });

  it('stops after a bounded number of problems', () => {
    const many = JSON.stringify(Array.from({ length: 1000 }, () => '\ud800'));
    expect(findJsonInputProblems(JSON.parse(many))).toHaveLength(20);
  });
});
