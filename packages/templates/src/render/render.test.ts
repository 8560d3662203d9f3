import { describe, expect, it } from 'vitest';
import { getTemplate, type RenderContext, render } from '../index.js';
import { contrastRatio } from './contrast.js';
import { escapeHtml } from './escape.js';
import { breakableUrl } from './render.js';

const ctx: RenderContext = {
  projectName: 'Acme',
  environmentName: 'production',
  supportEmail: 'support@acme.test',
  unsubscribeUrl: 'https://mail.acme.test/u/tok',
  postalAddress: 'Acme Inc.\r\n1 Market Street\n\nLisbon <PT> & Co',
};
const mention = (c: RenderContext) =>
  render('mention', undefined, { actionButton: { url: 'https://app.example.com/c/1' } }, c);
const resetLink = (c: RenderContext) =>
  render('password-reset', undefined, { actionButton: { url: 'https://app.example.com/r' } }, c);

describe('brand colour', () => {
  it('colours the button and light-mode links with a brand colour white text reads on', () => {
    const { html } = resetLink({ ...ctx, brandColor: '#166534' });
    expect(html).toContain('bgcolor="#166534"');
    expect(html).toMatch(/<a class="link" href="[^"]+" style="color:#166534/);
    expect(html).not.toContain('#2563eb');
  });

  it('falls back to the default for a colour white text cannot be read on, or one not #rrggbb', () => {
    expect(contrastRatio('#fde047', '#ffffff')).toBeLessThan(4.5);
    for (const brandColor of ['#fde047', 'red', '#16653', '#166534;background:url(x)']) {
      const { html } = resetLink({ ...ctx, brandColor });
      expect(html, brandColor).toContain('bgcolor="#2563eb"');
      expect(html, brandColor).not.toContain(brandColor);
    }
  });

  it('gives links a fixed light colour in dark mode that reaches 4.5:1 on the dark card', () => {
    const { html } = resetLink({ ...ctx, brandColor: '#166534' });
    const dark = /\.link\{color:(#[0-9a-f]{6})!important\}/.exec(html)?.[1];
    expect(dark).toBeDefined();
    expect(contrastRatio(dark!, '#1f2937')).toBeGreaterThanOrEqual(4.5);
  });
});

describe('logo', () => {
  it('replaces the name in the header with an https logo, its alt text the project name, its aspect ratio its own', () => {
    const { html } = resetLink({
      ...ctx,
      projectName: 'Acme "Cloud"',
      logoUrl: 'https://cdn.acme.test/l.png?a=1&b=2',
    });
    expect(html).toMatch(
      /<img class="logo" src="https:\/\/cdn\.acme\.test\/l\.png\?a=1&amp;b=2" alt="Acme &quot;Cloud&quot;" height="32"/,
    );
    // No width attribute: the image keeps its own aspect ratio (Outlook for Windows reads attributes).
    expect(html).not.toMatch(/<img class="logo"[^>]* width=/);
    expect(html).not.toMatch(/<span class="fg"[^>]*>Acme &quot;Cloud&quot;<\/span>/);
  });

  it('shows the name instead of a logo that is not https', () => {
    for (const logoUrl of [
      'http://cdn.acme.test/l.png',
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
    ]) {
      const { html } = resetLink({ ...ctx, logoUrl });
      expect(html, logoUrl).not.toContain('<img');
      expect(html, logoUrl).toContain('>Acme</span>');
    }
  });
});

describe('footer', () => {
  it('shows notification mail why it came, how to unsubscribe and the escaped postal address, lines kept', () => {
    const { html, text } = mention(ctx);
    expect(html).toContain('You receive this because notifications are on for your Acme account.');
    expect(html).toContain('href="https://mail.acme.test/u/tok"');
    expect(html).toContain('Acme Inc.<br>1 Market Street<br>Lisbon &lt;PT&gt; &amp; Co');
    expect(text).toContain(
      '--\nSent by Acme.\nQuestions? support@acme.test\n\n' +
        'You receive this because notifications are on for your Acme account.\n' +
        'Unsubscribe: https://mail.acme.test/u/tok\n\n' +
        'Acme Inc.\n1 Market Street\nLisbon <PT> & Co\n',
    );
  });

  it('keeps a short footer on security and transactional mail: no unsubscribe, no postal address', () => {
    expect(getTemplate('password-reset').version.category).toBe('security');
    const { html, text } = resetLink(ctx);
    expect(text).toMatch(/--\nSent by Acme\.\nQuestions\? support@acme\.test\n$/);
    expect(html).not.toContain('Market Street');
    expect(html).not.toContain('You receive this');
  });
});

describe('support address placeholder', () => {
  it('reads "<project> support" when the project has no support email, never "contact ."', () => {
    const { html, text } = render('account-unlocked', undefined, {}, { ...ctx, supportEmail: null });
    expect(text).toContain('contact Acme support.');
    expect(html).toContain('contact Acme support.');
    expect(text).not.toMatch(/contact \./i);
  });
});

describe('mail in real clients', () => {
  it('holds the column at 600 px in Outlook for Windows (an MSO-only table around the max-width one)', () => {
    const { html } = resetLink(ctx);
    expect(html).toContain(
      '<!--[if mso]><table role="presentation" width="600" align="center" cellpadding="0" cellspacing="0" border="0" style="width:600px"><tr><td><![endif]-->',
    );
    expect(html).toContain('<!--[if mso]></td></tr></table><![endif]-->');
  });

  it('keeps a button padded in Outlook for Windows (mso-padding-alt on its cell)', () => {
    const { html } = resetLink(ctx);
    expect(html).toMatch(/<td align="center" bgcolor="[^"]+" style="[^"]*mso-padding-alt:12px 24px"><a /);
  });

  it('lets a long URL shown as text wrap where word-break is not supported (<wbr>), the link itself unchanged', () => {
    const url = `https://app.example.com/reset?token=${'a1b2c3d4'.repeat(12)}&x=1`;
    expect(breakableUrl(url).replaceAll('<wbr>', '')).toBe(escapeHtml(url));
    for (const piece of breakableUrl(url).split('<wbr>'))
      expect(piece.replaceAll('&amp;', '&').length).toBeLessThanOrEqual(25);
  });
});
