import { describe, expect, it } from 'vitest';
import { getTemplate, render, renderVersion, validateTemplateData } from './index.js';

const ctx = { projectName: 'Acme', environmentName: 'production', supportEmail: 'support@acme.test' };
const ATTACKS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '</td></tr></table><b>x</b>'];

function renderData(id: string, data: Record<string, unknown>) {
  const v = getTemplate(id).version;
  const checked = validateTemplateData(v, data);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return renderVersion(v, checked.data, ctx);
}

describe('escaping', () => {
  it.each(ATTACKS)('escapes %s in every text type (text, code, button label, details values)', (attack) => {
    const out = renderData('account-locked', {
      heading: attack,
      intro: attack,
      notice: attack,
      subject: attack,
      preheader: attack,
      actionButton: { label: attack, url: 'https://example.com/unlock' },
      lockDetails: { reason: attack },
    });
    expect(out.html).not.toContain(attack);
    expect(out.html).not.toMatch(/<script|<img|<b>x/i);
    const code = renderData('login-code', { code: attack });
    expect(code.html).not.toContain(attack);
    expect(code.html).not.toMatch(/<script|<img|<b>x/i);
  });

  it('escapes values that arrive through placeholders', () => {
    const out = render(
      'magic-link',
      'v1',
      { actionButton: { url: 'https://example.com/s' } },
      { ...ctx, projectName: '<b>Evil</b> & Co' },
    );
    expect(out.subject).toBe('Your sign-in link for <b>Evil</b> & Co');
    expect(out.html).toContain('&lt;b&gt;Evil&lt;/b&gt; &amp; Co');
    expect(out.html).not.toContain('<b>Evil</b>');
  });

  it('fills {{projectName}}, {{environmentName}} and {{supportEmail}} in defaults and caller text, and leaves others', () => {
    const out = renderData('login-code', {
      code: '1',
      intro: 'Hi from {{projectName}} ({{environmentName}}), {{supportEmail}}, {{unknown}}',
    });
    expect(out.text).toContain('Hi from Acme (production), support@acme.test, {{unknown}}');
    expect(renderData('welcome', {}).subject).toBe('Your Acme account is ready');
  });

  it('attribute-escapes URLs after the scheme check', () => {
    const out = renderData('magic-link', { actionButton: { url: 'https://example.com/?a=1&b="2"' } });
    expect(out.html).toContain('href="https://example.com/?a=1&amp;b=&quot;2&quot;"');
  });

  it('keeps the subject on one line whatever CR/LF it is given', () => {
    const out = renderData('login-code', { code: '1', subject: 'Hello\r\nBcc: victim@example.com\n\tthere' });
    expect(out.subject).toBe('Hello Bcc: victim@example.com there');
    expect(out.subject).not.toMatch(/[\r\n\t]/);
  });
});

describe('URL fields', () => {
  it.each([
    ['javascript:alert(1)'],
    ['JaVaScRiPt:alert(1)'],
    ['data:text/html,<script>alert(1)</script>'],
    ['//evil.example/path'],
    ['https://exa mple.com'],
    ['https://example.com/\u0000'],
    ['ftp://example.com'],
    [`https://example.com/${'a'.repeat(2048)}`],
    ['https://paypal.com@evil.example/login'],
    ['https://user:pass@example.com/'],
    ['https://evil.example\\@paypal.com/'],
    ['https://app.example.\u0085com/'],
    ['https://app.example/\u009b31m'],
    ['https://app.example/\u202Emoc.lapyap'],
    ['https://pay\u200bpal.example/'],
  ])('refuses %s in actionButton.url with path /actionButton/url', (url) => {
    const checked = validateTemplateData(getTemplate('magic-link').version, { actionButton: { url } });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.errors.map((e) => e.path)).toContain('/actionButton/url');
  });

  it('accepts http and https in any letter case', () => {
    for (const url of ['https://example.com/a?b=c#d', 'HTTP://EXAMPLE.COM', 'http://127.0.0.1:3000/x']) {
      expect(validateTemplateData(getTemplate('magic-link').version, { actionButton: { url } }).ok, url).toBe(
        true,
      );
    }
  });

  it('checks a 64 KB URL in linear time: a hostile value costs about what a benign one of the same size does', () => {
    const v = getTemplate('magic-link').version;
    const size = 64 * 1024;
    const benign = `https://example.com/${'a'.repeat(size)}`;
    // Made to backtrack: a long authority with no path, then a character no URL may contain.
    const hostile = `https://${'a'.repeat(size)}\u0001`;
    const time = (url: string) => {
      const started = process.hrtime.bigint();
      validateTemplateData(v, { actionButton: { url } });
      return Number(process.hrtime.bigint() - started);
    };
    // The fastest of interleaved runs: a busy machine slows a run, it never speeds one up.
    let fastestBenign = Number.POSITIVE_INFINITY;
    let fastestHostile = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 7; i++) {
      fastestBenign = Math.min(fastestBenign, time(benign));
      fastestHostile = Math.min(fastestHostile, time(hostile));
    }
    const ratio = fastestHostile / fastestBenign;
    // Quadratic, this ratio was in the thousands (seconds against milliseconds).
    expect(ratio).toBeLessThan(20);
  });

  it('does not render a button whose URL bypassed validation', () => {
    const v = getTemplate('account-locked').version;
    const out = renderVersion(v, { actionButton: { label: 'x', url: 'javascript:alert(1)' } }, ctx);
    expect(out.html).not.toContain('javascript:');
  });
});

describe('text part', () => {
  it.each(['login-code', 'magic-link', 'account-locked', 'mfa-disabled', 'email-changed', 'mention'])(
    '%s matches its snapshot',
    (id) => {
      const v = getTemplate(id).version;
      const data: Record<string, Record<string, unknown>> = {
        'login-code': { code: '482913' },
        'magic-link': { actionButton: { url: 'https://app.example.com/signin?t=abc' } },
        'account-locked': {
          lockDetails: { lockedAt: '2026-11-22T10:15:30Z', reason: 'Too many attempts' },
          actionButton: { url: 'https://app.example.com/unlock' },
        },
        'mfa-disabled': {
          securityDetails: {
            disabledAt: '2026-11-22T10:15:30Z',
            device: 'Firefox on macOS',
            country: 'Portugal',
            ip: '203.0.113.9',
          },
        },
        'email-changed': {
          changeDetails: {
            changedAt: '2026-11-22T10:15:30Z',
            oldEmail: 'old@example.com',
            newEmail: 'new@example.com',
          },
        },
        mention: {
          notice: '@jane can you look at this?',
          actionButton: { url: 'https://app.example.com/c/1' },
        },
      };
      const checked = validateTemplateData(v, data[id]);
      if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
      expect(
        renderVersion(v, checked.data, { ...ctx, unsubscribeUrl: 'https://mail.acme.test/u/tok' }).text,
      ).toMatchSnapshot();
    },
  );
});
