import { describe, expect, it } from 'vitest';
import { BulkSendRequest, ListContactsRequest, UpsertContactRequest, UpsertContactsRequest } from './api.js';
import { capErrorDetails, MAX_ERROR_DETAILS } from './errors.js';
import { findSizeProblems } from './size-bounds.js';

const zeros = (n: number) => Array.from({ length: n }, () => 0);

describe('sizes before items', () => {
  it('finds an array over its maxItems, at its path, without looking at its items', () => {
    expect(findSizeProblems(UpsertContactsRequest, { contacts: zeros(100_000) })).toEqual([
      { path: '/contacts', message: 'must NOT have more than 1000 items' },
    ]);
  });

  it('passes what the schema allows, whatever else is wrong with it (left to the validation)', () => {
    expect(findSizeProblems(UpsertContactsRequest, { contacts: zeros(1000), extra: 'x' })).toEqual([]);
    expect(findSizeProblems(UpsertContactsRequest, 'not an object')).toEqual([]);
  });

  it('reports a union too large in every branch that takes its type (one contact or a list of them)', () => {
    expect(findSizeProblems(BulkSendRequest, { templateId: 'x', to: zeros(1001) })).toEqual([
      { path: '/to', message: 'must NOT have more than 1000 items' },
    ]);
    expect(findSizeProblems(BulkSendRequest, { templateId: 'x', to: 'jane@example.com' })).toEqual([]);
  });

  it('goes into array items and union branches (contacts list filters: an `in` list of 101 values)', () => {
    const filters = [{ field: 'group', op: 'in', value: Array.from({ length: 101 }, (_, i) => `g${i}`) }];
    expect(findSizeProblems(ListContactsRequest, { filters })).toEqual([
      { path: '/filters/0/value', message: 'must NOT have more than 100 items' },
    ]);
  });

  it('checks maxProperties, and objects under additionalProperties and patternProperties', () => {
    const schema = {
      type: 'object',
      maxProperties: 2,
      patternProperties: { '^p': { type: 'array', maxItems: 1 } },
      additionalProperties: { type: 'object', maxProperties: 1 },
    };
    expect(findSizeProblems(schema, { a: 1, b: 2, c: 3 })).toEqual([
      { path: '/', message: 'must NOT have more than 2 properties' },
    ]);
    expect(findSizeProblems(schema, { p1: [1, 2] })).toEqual([
      { path: '/p1', message: 'must NOT have more than 1 items' },
    ]);
    expect(findSizeProblems(schema, { 'a/b': { x: 1, y: 2 } })).toEqual([
      { path: '/a~1b', message: 'must NOT have more than 1 properties' },
    ]);
  });
});

describe('closed objects', () => {
  const closed = { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } };
  const unknownKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

  it('names every unknown key in one pass when there are more than an answer lists (20)', () => {
    const problems = findSizeProblems(closed, { a: 'x', ...unknownKeys(15_000) });
    expect(problems).toHaveLength(15_000);
    expect(problems[0]).toEqual({ path: '/k0', message: 'is not an allowed property' });
  });

  it('leaves 20 unknown keys or fewer to the validation, which words every problem', () => {
    expect(findSizeProblems(closed, unknownKeys(20))).toEqual([]);
  });

  it("bounds a contact's custom fields in one request at 100 keys (50 set, 50 deleted)", () => {
    const customFields = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, null]));
    expect(findSizeProblems(UpsertContactRequest, { email: 'a@b.co', customFields })).toEqual([
      { path: '/customFields', message: 'must NOT have more than 100 properties' },
    ]);
  });
});

describe('at most 20 details', () => {
  it('keeps the first 20 and says how many there were', () => {
    const details = Array.from({ length: 100_001 }, (_, i) => ({ path: `/contacts/${i}`, message: 'x' }));
    const capped = capErrorDetails('The request body is not valid.', details);
    expect(capped.details).toHaveLength(MAX_ERROR_DETAILS);
    expect(capped.details![19]!.path).toBe('/contacts/19');
    expect(capped.message).toBe(
      'The request body is not valid. 100,001 problems: `details` lists the first 20, and 99,981 more.',
    );
  });

  it('leaves 20 or fewer as they are', () => {
    const details = [{ path: '/a', message: 'x' }];
    expect(capErrorDetails('m', details)).toEqual({ message: 'm', details });
    expect(capErrorDetails('m', undefined)).toEqual({ message: 'm', details: undefined });
  });
});
