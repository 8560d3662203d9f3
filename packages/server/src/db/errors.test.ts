import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isStatementError } from './errors.js';

describe('isDatabaseUnavailable (503, never 500)', () => {
  it.each([
    ['connection refused', { code: 'ECONNREFUSED' }],
    ['a server restart (57P01)', { code: '57P01', severity: 'FATAL' }],
    ['the database dropped (3D000)', { code: '3D000', severity: 'FATAL' }],
    ['credentials changed (28P01)', { code: '28P01', severity: 'FATAL' }],
    ['pg: connection terminated', new Error('Connection terminated unexpectedly')],
    ['a wrapped cause', Object.assign(new Error('x'), { cause: { code: 'ECONNRESET' } })],
  ])('counts %s', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation', { code: '23505', severity: 'ERROR' }],
    ['bad input syntax', { code: '22P02', severity: 'ERROR' }],
    ['a plain bug', new TypeError('x is undefined')],
  ])('does not count %s', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

describe('isStatementError (a batch is retried item by item only for these)', () => {
  it.each([
    ['a NUL the database cannot store (22P05)', { code: '22P05', severity: 'ERROR' }],
    ['a unique violation (23505)', { code: '23505', severity: 'ERROR' }],
    ['a deadlock (40P01)', { code: '40P01', severity: 'ERROR' }],
  ])('counts %s', (_name, err) => {
    expect(isStatementError(err)).toBe(true);
  });

  it.each([
    ['the database unavailable (57P01)', { code: '57P01', severity: 'FATAL' }],
    ['a refused connection', { code: 'ECONNREFUSED' }],
    ['an error of our own code after the statement, when the batch may have committed', new TypeError('x')],
    ['a result that does not match the batch', new Error('accept_messages returned 3 outcomes for 4 items')],
  ])('does not count %s', (_name, err) => {
    expect(isStatementError(err)).toBe(false);
  });
});
