import { describe, expect, it } from 'vitest';
import { checkDisplayName } from './display-name.js';
import { maskEmail, parseDomain, parseEmail } from './email.js';

describe('parseEmail', () => {
  it('trims, lowercases and keeps IDN domains as punycode', () => {
    expect(parseEmail('  Jane.Doe@Example.COM ')).toMatchObject({
      ok: true,
      address: 'jane.doe@example.com',
    });
    expect(parseEmail('a@bücher.example')).toMatchObject({ ok: true, domain: 'xn--bcher-kva.example' });
  });

  it.each([
    ['display name', 'Jane <jane@example.com>'],
    ['list', 'a@example.com, b@example.com'],
    ['CR/LF', 'a@example.com\r\nBcc: b@example.com'],
    ['no domain', 'jane@'],
    ['no local part', '@example.com'],
    ['single-label domain', 'jane@localhost'],
    ['numeric TLD', 'jane@1.2.3.4'],
    ['65-character local part', `${'a'.repeat(65)}@example.com`],
    ['over 254 characters', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`],
    ['quoted local part', '"jane doe"@example.com'],
    ['a zero-width space in the domain (IDNA would drop it)', 'jane@exa\u200bmple.com'],
    ['a tab in the domain (IDNA would drop it)', 'jane@exa\tmple.com'],
    ['a C1 control', 'jane@exa\u0085mple.com'],
    ['a bidi control', 'jane@exa\u202emple.com'],
  ])('refuses a %s', (_name, value) => {
    expect(parseEmail(value).ok).toBe(false);
  });

  it('says a display name form ("Jane <jane@example.com>") is refused for its name, not its whitespace', () => {
    for (const value of ['Jane <jane@example.com>', '<jane@example.com>', '"Doe, Jane" <jane@example.com>'])
      expect(parseEmail(value), value).toEqual({
        ok: false,
        reason: 'must be a bare address such as name@example.com, without a display name or angle brackets',
      });
  });

  it('refuses an address over 254 characters before any pattern runs (a quadratic one took seconds on these)', () => {
    for (const value of [
      `<${'@'.repeat(200_000)}`,
      `${'a'.repeat(200_000)}@example.com`,
      `<${'a@'.repeat(100_000)}>`,
    ])
      expect(parseEmail(value)).toEqual({ ok: false, reason: 'must be at most 254 characters' });
  });

  it('says a non-ASCII local part is refused because it needs SMTPUTF8, not that the address is not bare', () => {
    expect(parseEmail('jörg@example.com')).toEqual({
      ok: false,
      reason:
        'local part must be ASCII: non-ASCII (SMTPUTF8) local parts are not accepted; the domain may be Unicode',
    });
  });
});

describe('maskEmail', () => {
  it('keeps the first character and the domain only', () => {
    expect(maskEmail('jane@example.com')).toBe('j***@example.com');
  });
});

describe('checkDisplayName', () => {
  it('refuses line breaks, NUL and 121 characters', () => {
    expect(checkDisplayName('Acme\r\nBcc: x')).not.toBeNull();
    expect(checkDisplayName('Acme\u0000')).not.toBeNull();
    expect(checkDisplayName('a'.repeat(121))).not.toBeNull();
    expect(checkDisplayName('a'.repeat(120))).toBeNull();
  });
});

describe('parseDomain', () => {
  it('normalises and refuses non-domains', () => {
    expect(parseDomain('Mail.Example.com.')).toBe('mail.example.com');
    expect(parseDomain('not a domain')).toBeNull();
    expect(parseDomain('localhost')).toBeNull();
    for (const hidden of [
      'mail.e\txample.com',
      'mail.e\nxample.com',
      'mail.exa\u200bmple.com',
      'mail.ex\u00adample.com',
    ])
      expect(parseDomain(hidden), JSON.stringify(hidden)).toBeNull();
  });
});
