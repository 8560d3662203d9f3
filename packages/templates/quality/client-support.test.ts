// Every template version, rendered as the worker renders it (with a logo, a brand colour and, for
// notifications, the unsubscribe footer), checked against caniemail's client-support data (the
// caniemail package, from the caniemail.com project) for the clients most mail is read in. A
// feature a client does not support at all fails the test unless it is listed below with why the
// message still lays out there (a fallback, or progressive enhancement). Layout-critical features
// may never be on that list: in these clients the column, its width, its padding and colours hold.
import { caniemail } from 'caniemail';
import { describe, expect, it } from 'vitest';
import { templates } from '../src/catalogue/index.js';
import type { RenderContext } from '../src/model.js';
import { getFixture, renderVersion } from '../src/registry.js';

const CLIENTS: Parameters<typeof caniemail>[0]['clients'] = [
  'gmail.*',
  'outlook.windows',
  'outlook.windows-mail',
  'outlook.macos',
  'outlook.ios',
  'outlook.android',
  'apple-mail.*',
  'yahoo.*',
  'samsung-email.android',
  'thunderbird.macos',
];

/** Unsupported somewhere, and why the message is fine there anyway. */
const TOLERATED: Record<string, string> = {
  '<style> element':
    'Gmail webmail on mobile with a non-Gmail account drops <style>: the dark-mode and narrow-screen rules are enhancements; the layout is inline.',
  'Type selector': 'in the <style> block (dark mode): an enhancement, the light layout is inline.',
  'Attribute selector': 'a[x-apple-data-detectors] in <style>: only Apple Mail needs it.',
  '@media': 'dark mode and the narrow-screen padding: enhancements; the inline layout is the base.',
  'display:none':
    'the hidden preheader; where ignored, its text shows above the message (mso-hide covers Outlook).',
  opacity: 'the hidden preheader (with display:none, max-height:0 and mso-hide).',
  overflow: 'the hidden preheader (with display:none, max-height:0 and mso-hide).',
  'target attribute': 'Gmail and Yahoo open every link in a new tab anyway.',
  'border-radius': 'rounded corners of the card and the button: square in Outlook for Windows.',
  '<wbr> element': 'a long URL shown as text breaks by word-break:break-all where <wbr> is ignored.',
  'word-break': 'a long URL shown as text breaks at its <wbr> where word-break is ignored.',
  'aria-label attribute': 'names the message for screen readers; a client that drops it loses only that.',
  'role attribute': 'role="presentation" on layout tables, for screen readers only.',
  '<body> element':
    'body styles are dropped there: the background and the column are on the wrapper table too.',
};

/**
 * Features the message's layout stands on: never tolerated as unsupported, and where a client
 * supports one only partly, the entry says why that part is not used or names the fallback the
 * message carries for it (which must be in every message).
 */
const LAYOUT_CRITICAL: Record<string, { why: string; fallback?: { ifUsed: RegExp; present: RegExp } }> = {
  'max-width': {
    why: 'Outlook for Windows ignores it on the 600 px column: an MSO-only table of width 600 holds it there (what MJML emits); elsewhere the column is a 100%-wide table',
    fallback: {
      ifUsed: /max-width:600px/,
      present: /<!--\[if mso\]><table role="presentation" width="600"[^>]*><tr><td><!\[endif\]-->/,
    },
  },
  padding: {
    why: "Outlook for Windows pads table cells only: a button's cell carries its padding there (mso-padding-alt); the code box, a span, shows there with its border and background but without its inner padding",
    fallback: {
      ifUsed: /<a href="[^"]*" target="_blank" rel="noopener" style="display:inline-block;padding/,
      present: /<td align="center" bgcolor="[^"]+" style="[^"]*mso-padding-alt:12px 24px"><a /,
    },
  },
  margin: { why: 'no negative values; the paragraphs and tables that use it are not <span> or <body>' },
  display: { why: 'only block, inline-block and none (the preheader, with mso-hide:all for Outlook)' },
  background: { why: 'background colours only, one value each' },
  border: { why: 'borders of 1 to 4 px on table cells and the code box' },
  'width property': {
    why: 'width:auto on the logo only; its height attribute sizes it in Outlook for Windows',
  },
  'width attribute': { why: 'on tables only, in pixels or 100% of the parent' },
  'height attribute': { why: 'the logo: its line when images are blocked' },
  '<img> element': { why: 'the logo, with alt text for clients that block images' },
  'letter-spacing': { why: 'a small positive value in px on the code' },
  'text-decoration': { why: 'one value (none or underline) per link' },
  'align attribute': { why: 'align="center" on table cells' },
};

const BASE: RenderContext = {
  projectName: 'Acme',
  environmentName: 'production',
  supportEmail: 'support@acme.test',
  unsubscribeUrl: 'https://mail.acme.test/u/tok',
  postalAddress: 'Acme Inc.\n1 Market Street\nLisbon 1100-148, Portugal',
  brandColor: '#166534',
  logoUrl: 'https://cdn.acme.test/logo.png',
};

interface Issue {
  support?: string;
  title: string;
  notes: string[];
}

/** Per feature, the clients that do not support it (errors) or only partly (warnings). */
function support(html: string): { none: Map<string, Set<string>>; partial: Map<string, Set<string>> } {
  const { issues } = caniemail({ clients: CLIENTS, html });
  const collect = (found: unknown) => {
    const byFeature = new Map<string, Set<string>>();
    for (const [client, list] of found as Map<string, Iterable<Issue> | Record<string, Issue>>) {
      const values = Symbol.iterator in Object(list) ? (list as Iterable<Issue>) : Object.values(list);
      for (const issue of values)
        byFeature.set(issue.title, (byFeature.get(issue.title) ?? new Set()).add(client));
    }
    return byFeature;
  };
  return { none: collect(issues.errors), partial: collect(issues.warnings) };
}

describe('client support (caniemail)', () => {
  it('tolerates no layout-critical feature as unsupported', () => {
    expect(Object.keys(LAYOUT_CRITICAL).filter((f) => f in TOLERATED)).toEqual([]);
  });

  it('uses in every template version only features each client supports, or ones listed with their fallback', () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    const seenPartial = new Set<string>();
    for (const t of templates)
      for (const v of t.versions) {
        const { html } = renderVersion(v, getFixture(v), BASE);
        const { none, partial } = support(html);
        for (const [feature, clients] of none) {
          seen.add(feature);
          if (!(feature in TOLERATED))
            problems.push(`${t.id} ${v.version}: ${feature} is not supported in ${[...clients].join(', ')}`);
        }
        for (const [feature, clients] of partial) {
          const critical = LAYOUT_CRITICAL[feature];
          if (!critical) continue;
          seenPartial.add(feature);
          if (critical.fallback?.ifUsed.test(html) && !critical.fallback.present.test(html))
            problems.push(
              `${t.id} ${v.version}: ${feature} is only partly supported in ${[...clients].join(', ')}, and the message lacks its fallback (${critical.why})`,
            );
        }
      }
    expect([...new Set(problems)].slice(0, 30)).toEqual([]);
    // The lists hold what is still used, nothing more.
    expect(Object.keys(TOLERATED).filter((f) => !seen.has(f))).toEqual([]);
    expect(Object.keys(LAYOUT_CRITICAL).filter((f) => !seenPartial.has(f))).toEqual([]);
  });
});
