import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './errors.js';

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
