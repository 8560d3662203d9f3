import { GROUP_SLUG_PATTERN } from '@mailsvc/contract/api';
import { describe, expect, it } from 'vitest';
import { deriveGroupSlug } from './derive-group-slug.js';

describe('deriveGroupSlug', () => {
  it('lowercases and joins words with one hyphen', () => {
    expect(deriveGroupSlug('Beta Testers')).toBe('beta-testers');
    expect(deriveGroupSlug('VIP customers 2026')).toBe('vip-customers-2026');
  });

  it('drops diacritics after compatibility decomposition', () => {
    expect(deriveGroupSlug('Équipe Café')).toBe('equipe-cafe');
    expect(deriveGroupSlug('Ångström Ünïcödé')).toBe('angstrom-unicode');
    expect(deriveGroupSlug('ﬁnance ①')).toBe('finance-1');
    expect(deriveGroupSlug('İstanbul')).toBe('istanbul');
  });

  it('turns every run of punctuation, spaces and other scripts into one hyphen, trimmed at both ends', () => {
    expect(deriveGroupSlug('  --Hello,   World!!--  ')).toBe('hello-world');
    expect(deriveGroupSlug('a_b.c/d\\e')).toBe('a-b-c-d-e');
    expect(deriveGroupSlug('Straße 東京 team')).toBe('stra-e-team');
  });

  it('cuts a long name to 63 characters and trims a hyphen left at the cut', () => {
    expect(deriveGroupSlug('a'.repeat(100))).toBe('a'.repeat(63));
    const cutAtHyphen = `${'a'.repeat(62)} bcd`;
    expect(deriveGroupSlug(cutAtHyphen)).toBe('a'.repeat(62));
  });

  it('answers null when no letter or digit is left', () => {
    for (const name of ['', '   ', '!!!', '---', '東京', '🎉🎉', '\u0301'])
      expect(deriveGroupSlug(name)).toBeNull();
  });

  it('always answers a slug matching GROUP_SLUG_PATTERN', () => {
    const pattern = new RegExp(GROUP_SLUG_PATTERN);
    for (const name of ['x', 'Ab-', '-9', `${'é'.repeat(80)}`, 'a - b', `${'ab '.repeat(40)}`])
      expect(deriveGroupSlug(name), name).toMatch(pattern);
  });
});
