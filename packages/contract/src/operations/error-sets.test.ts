// The security cases every route shares (packages/testkit's runCommonRouteTests) run for the codes
// an operation declares. This keeps the declarations whole, so no case can drop out silently: an
// API-key operation declares every key and access refusal, and a POST every body refusal.
import { describe, expect, it } from 'vitest';
import { operations } from '../api.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

describe('every operation declares the refusals its kind of route can answer', () => {
  it.each(Object.entries(operations as Record<string, Operation>))('%s', (_, op) => {
    const declared = new Set<string>(op.errors ?? []);
    const expected: string[] = [];
    if ((op.auth ?? 'apiKey') === 'apiKey') expected.push(...API_KEY_ERRORS, ...ACCESS_ERRORS);
    if (op.method === 'POST') expected.push(...JSON_BODY_ERRORS);
    expect(expected.filter((code) => !declared.has(code))).toEqual([]);
  });
});
