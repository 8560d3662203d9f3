import { describe, expect, it } from 'vitest';
import { parseTimestamp } from './timestamp.js';

describe('parseTimestamp', () => {
  it.each([
    ['2026-12-01T00:00:00Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01T00:00:00.5Z', '2026-12-01T00:00:00.500Z'],
    ['2026-12-01T01:30:00+01:30', '2026-12-01T00:00:00.000Z'],
    ['2026-11-30T14:00:00-14:00', '2026-12-01T04:00:00.000Z'],
    ['2028-02-29T12:00:00Z', '2028-02-29T12:00:00.000Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(iso);
  });

  it.each([
    ['year 0000', '0000-01-01T00:00:00Z'],
    ['year 0075 (Date.UTC would read it as 1975)', '0075-06-01T00:00:00Z'],
    ['year 0099', '0099-12-31T23:59:59Z'],
    ['before 1970', '1969-12-31T23:59:59Z'],
    ['an offset of +23:59', '2026-12-01T00:00:00+23:59'],
    ['an offset of -15:00', '2026-12-01T00:00:00-15:00'],
    ['a leap second', '9999-12-31T23:59:60Z'],
    ['past year 9999 once in UTC', '9999-12-31T23:00:00-02:00'],
    ['February 30', '2026-02-30T00:00:00Z'],
    ['no offset', '2026-12-01T00:00:00'],
    ['a date only', '2026-12-01'],
    ['hour 24', '2026-12-01T24:00:00Z'],
    ['text around it', ' 2026-12-01T00:00:00Z'],
  ])('refuses %s', (_name, text) => {
    expect(parseTimestamp(text)).toBeNull();
  });
});
