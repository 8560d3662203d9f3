import { describe, expect, it } from 'vitest';
import { checkDisplayName } from './display-name.js';

describe('checkDisplayName', () => {
  it.each([
    ['CR/LF (header injection)', 'Acme\r\nBcc: x@example.com'],
    ['NUL', 'Acme\u0000'],
    ['a C1 control (U+0085 next line)', 'Acme\u0085Security'],
    ['a C1 control (U+009B CSI)', 'Acme\u009b31m'],
    ['right-to-left override (U+202E)', 'PayPal \u202Emoc.live'],
    ['left-to-right embedding (U+202A)', '\u202APayPal'],
    ['a bidi isolate (U+2066–U+2069)', 'Pay\u2067Pal\u2069'],
    ['the Arabic letter mark (U+061C)', 'Pay\u061cPal'],
    ['a zero-width space', 'Pay\u200bPal'],
    ['a zero-width joiner', 'Pay\u200dPal'],
    ['a word joiner (U+2060)', 'Pay\u2060Pal'],
    ['a byte order mark', '\ufeffPayPal'],
    ['a line separator (U+2028)', 'Acme\u2028Security'],
    ['an unpaired surrogate', 'Acme \ud800'],
    ['121 characters', 'a'.repeat(121)],
    ['an email address (a sender it is not)', 'security@paypal.com'],
    ['an address inside other words', 'PayPal Security (service@paypal.com)'],
    ['an address in angle brackets', 'PayPal <service@paypal.com>'],
  ])('refuses %s', (_name, value) => {
    expect(checkDisplayName(value)).not.toBeNull();
  });

  it.each([
    ['plain ASCII', 'Acme Security'],
    ['accented Latin', 'Société Générale'],
    ['CJK', '株式会社アクメ'],
    ['Arabic', 'شركة أكمي'],
    ['an emoji (a surrogate pair)', 'Acme 🚀'],
    ['120 characters', 'a'.repeat(120)],
    ['an at sign that is not an address', 'Team @ Acme'],
    ['angle brackets without an address', 'Acme <Cloud>'],
  ])('accepts %s', (_name, value) => {
    expect(checkDisplayName(value)).toBeNull();
  });
});
