import { getFixture, renderVersion, templates, validateTemplateData } from '@mailsvc/templates';
import { describe, expect, it } from 'vitest';
import { extractCodes } from './extract-codes.js';
import { extractLinks } from './extract-links.js';
import { countLeafParts, mimeTree } from './mime-parts.js';

const CONTEXT = {
  projectName: 'Acme',
  environmentName: 'production',
  supportEmail: 'support@acme.test',
  unsubscribeUrl: 'https://mail.acme.test/u/tok',
};

describe('extractCodes', () => {
  const versions = templates.flatMap((t) => t.versions.map((v) => [`${t.id} ${v.version}`, v] as const));

  it.each(versions)('finds exactly the code field of %s, in both parts', (_name, version) => {
    const checked = validateTemplateData(version, getFixture(version));
    if (!checked.ok) throw new Error('fixture fails its schema');
    const codeFields = version.fields.filter((f) => f.kind === 'code').map((f) => f.name);
    const expected = codeFields.map((name) => String(checked.data[name]));
    const { html, text } = renderVersion(version, checked.data, CONTEXT);
    expect(extractCodes({ html, text })).toEqual(expected);
    expect(extractCodes({ html: null, text })).toEqual(expected);
  });

  it('reads the code block, not digits in prose, in either part', () => {
    expect(
      extractCodes({
        html: '<p>Order 123456 on 2026-11-22</p><p style="x"><span class="code" style="y">48&#50;913</span></p>',
        text: 'Order 123456\n\n    999999\n',
      }),
    ).toEqual(['482913']);
    expect(extractCodes({ html: null, text: 'Order 123456 for 99.50\n  Tracking: 556677\n' })).toEqual([]);
    // A line indented by four spaces inside a paragraph is not a code block.
    expect(extractCodes({ html: null, text: 'Lines:\n    123456\nmore' })).toEqual([]);
    expect(extractCodes({ html: null, text: 'Your code\r\n\r\n    AB 12\r\n\r\nBye' })).toEqual(['AB 12']);
    expect(
      extractCodes({ html: '<span class="barcode">1</span><span class="big code">X-1</span>', text: null }),
    ).toEqual(['X-1']);
    expect(
      extractCodes({ html: '<span class="code">1</span><span class="code">1</span>', text: null }),
    ).toEqual(['1']);
    expect(extractCodes({ html: '<span class="code">unclosed', text: '\n    7\n' })).toEqual(['7']);
  });
});

describe('extractLinks', () => {
  it('lists the HTML part’s links with their text (or an image’s alt), decoded', () => {
    expect(
      extractLinks({
        html: `<a href="https://a.test/?x=1&amp;y=2" target="_blank">Sign <b>in</b></a><a href='mailto:x@a.test'><img alt="Mail us" src=x></a><a name="top">no href</a><A HREF=https://b.test>B</A>`,
        text: 'ignored https://c.test',
      }),
    ).toEqual([
      { url: 'https://a.test/?x=1&y=2', text: 'Sign in' },
      { url: 'mailto:x@a.test', text: 'Mail us' },
      { url: 'https://b.test', text: 'B' },
    ]);
  });

  it('reads a text-only message’s URLs, with the label the templates write before a button’s URL', () => {
    expect(
      extractLinks({ html: null, text: 'Sign in: https://a.test/s?t=1\nSee https://b.test/x.' }),
    ).toEqual([
      { url: 'https://a.test/s?t=1', text: 'Sign in' },
      { url: 'https://b.test/x', text: '' },
    ]);
  });

  it('stays linear on markup without closing tags', () => {
    const started = Date.now();
    extractLinks({ html: '<a href="x">'.repeat(50_000), text: null });
    extractCodes({ html: '<span class="code">'.repeat(50_000), text: null });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('mimeTree', () => {
  it('walks nested multiparts and counts the leaves', () => {
    const raw = Buffer.from(
      [
        'Content-Type: multipart/mixed; boundary="outer"',
        '',
        '--outer',
        'Content-Type: multipart/alternative;',
        ' boundary=inner',
        '',
        '--inner',
        'Content-Type: text/plain',
        '',
        'hi',
        '--inner',
        'Content-Type: text/html',
        '',
        '<p>hi</p>',
        '--inner--',
        '--outer',
        'Content-Type: application/pdf; name=a.pdf',
        '',
        'JVBERi0=',
        '--outer--',
        '',
      ].join('\r\n'),
    );
    const tree = mimeTree(raw);
    expect(tree.contentType).toBe('multipart/mixed');
    expect(tree.children.map((c) => c.contentType)).toEqual(['multipart/alternative', 'application/pdf']);
    expect(tree.children[0]!.children.map((c) => c.contentType)).toEqual(['text/plain', 'text/html']);
    expect(countLeafParts(tree)).toBe(3);
    expect(countLeafParts(mimeTree(Buffer.from('Subject: x\r\n\r\nbody')))).toBe(1);
  });
});
