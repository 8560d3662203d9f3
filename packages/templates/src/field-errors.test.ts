// Request and template-data problems as the API answers them: a path per problem, in words.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { toFieldErrors } from './field-errors.js';

const problemsOf = (schema: object, value: unknown) => {
  const validate = new Ajv({ allErrors: true }).compile(schema);
  validate(value);
  return toFieldErrors(validate.errors);
};

describe('toFieldErrors', () => {
  const events = {
    type: 'object',
    properties: {
      events: {
        anyOf: [{ type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true }, { type: 'null' }],
      },
    },
  };

  it('names only the problem inside a value of an anyOf, not the branches it did not take', () => {
    expect(problemsOf(events, { events: ['a', 'nonsense'] })).toEqual([
      { path: '/events/1', message: 'must be one of "a", "b"' },
    ]);
  });

  it('keeps the anyOf and its branches when the value itself is wrong', () => {
    const paths = problemsOf(events, { events: 'a' }).map((p) => p.path);
    expect(paths).toEqual(['/events', '/events', '/events']);
  });

  it('answers a union of fixed values with every allowed value, once', () => {
    const scope = {
      type: 'object',
      properties: { scope: { anyOf: [{ const: 'environment' }, { const: 'project' }, { const: 'tenant' }] } },
    };
    expect(problemsOf(scope, { scope: 'bogus' })).toEqual([
      { path: '/scope', message: 'must be one of "environment", "project", "tenant"' },
    ]);
  });

  it('says which items repeat, and how many properties an object needs, in words', () => {
    expect(problemsOf(events, { events: ['a', 'a'] })).toEqual([
      { path: '/events', message: 'must not repeat a value (items 0 and 1 are the same)' },
    ]);
    expect(problemsOf({ type: 'object', minProperties: 1 }, {})).toEqual([
      { path: '/', message: 'must have at least 1 property' },
    ]);
  });
});
