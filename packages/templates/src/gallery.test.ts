import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { templates } from './catalogue/index.js';
import {
  fieldRows,
  findGalleryVersion,
  GALLERY_CONTEXT,
  galleryScript,
  matchesQuery,
  renderGalleryPreview,
  renderTemplatePage,
  withColorScheme,
} from './gallery.js';
import { FRAME_SANDBOX, frameDocument } from './preview-frame.js';
import { getFixture, jsonSchemaFor } from './registry.js';
import { escapeHtml } from './render/escape.js';

describe('the gallery preview', () => {
  it('renders every version from its fixture, and its dark variant applies the dark-mode rules unconditionally', () => {
    for (const t of templates) {
      for (const v of t.versions) {
        const light = renderGalleryPreview(v, getFixture(v), GALLERY_CONTEXT, 'light');
        const dark = renderGalleryPreview(v, getFixture(v), GALLERY_CONTEXT, 'dark');
        if (!light.ok || !dark.ok) throw new Error(`${t.id} ${v.version}: fixture fails its schema`);
        // If the renderer ever writes its dark-mode query differently, the toggle would do nothing.
        expect(dark.message.html, `${t.id} ${v.version}`).not.toMatch(/prefers-color-scheme/i);
        expect(dark.message.html).toContain('@media all{');
        expect(light.message.html).toContain('@media not all{');
        expect(dark.message.text).toBe(light.message.text);
      }
    }
  });

  it('rewrites the query however it is spaced, and nothing else', () => {
    const css =
      '<style>@media (prefers-color-scheme:dark){.a{}}@media ( prefers-color-scheme : DARK ){.b{}}@media (max-width:620px){.c{}}</style>';
    expect(withColorScheme(css, 'dark')).toBe(
      '<style>@media all{.a{}}@media all{.b{}}@media (max-width:620px){.c{}}</style>',
    );
    expect(withColorScheme(css, 'light')).toBe(
      '<style>@media not all{.a{}}@media not all{.b{}}@media (max-width:620px){.c{}}</style>',
    );
  });

  it('answers invalid data with the validation errors of POST /v1/send', () => {
    const { version } = findGalleryVersion('login-code', 'v1');
    const out = renderGalleryPreview(version, { code: '' }, GALLERY_CONTEXT);
    expect(out).toEqual({ ok: false, errors: [{ path: '/code', message: expect.any(String) }] });
  });
});

describe('the template page', () => {
  it('shows the preview in the shared frame: its sandbox, and a document whose links open in a new tab', () => {
    const { template, version } = findGalleryVersion('magic-link', 'v1');
    const page = renderTemplatePage({
      template,
      version,
      context: GALLERY_CONTEXT,
      scheme: 'light',
      width: 800,
      view: 'html',
      projects: [],
      exampleSend: { isPossible: false, note: '' },
    });
    const frame = /<iframe [^>]*>/.exec(page)![0];
    expect(/ sandbox="([^"]*)"/.exec(frame)![1]).toBe(FRAME_SANDBOX);
    const srcdoc = /srcdoc="([^"]*)"/.exec(frame)![1]!;
    expect(srcdoc).toContain('&lt;head&gt;&lt;base target=&quot;_blank&quot;&gt;');
    const preview = renderGalleryPreview(version, getFixture(version), GALLERY_CONTEXT);
    if (!preview.ok) throw new Error('fixture fails its schema');
    expect(srcdoc).toBe(escapeHtml(frameDocument(preview.message.html)));
  });
});

describe('the preview width', () => {
  const page = (width: 375 | 800) => {
    const { template, version } = findGalleryVersion('login-code', 'v1');
    return renderTemplatePage({
      template,
      version,
      context: GALLERY_CONTEXT,
      scheme: 'light',
      width,
      view: 'html',
      projects: [],
      exampleSend: { isPossible: false, note: '' },
    });
  };
  /** The declarations of a rule of the page's style, as written. */
  const rule = (html: string, selector: string) => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const found = [...style.matchAll(/([^{}]+)\{([^{}]*)\}/g)].filter(([, sel]) => sel!.trim() === selector);
    return found.map(([, , body]) => body).join(';');
  };

  it('is the width of the frame itself, not a maximum the column may squeeze (800 px read as 772 px)', () => {
    const html = page(800);
    expect(/<iframe [^>]*>/.exec(html)![0]).toContain('class="frame w800"');
    // The mail's viewport is the frame's content box: its border is outside the chosen width.
    expect(rule(html, 'iframe.frame')).toContain('box-sizing:content-box');
    expect(rule(html, 'iframe.frame.w800')).toBe('width:800px');
    expect(rule(html, 'iframe.frame.w375')).toBe('width:375px');
    expect(`${rule(html, 'iframe.frame.w800')};${rule(html, 'iframe.frame')}`).not.toMatch(/max-width|100%/);
  });

  it('scrolls the area around the frame sideways when the column is narrower; the page does not', () => {
    const html = page(375);
    expect(html).toMatch(/<div class="frame-area"><iframe [^>]*class="frame w375"[^>]*><\/iframe><\/div>/);
    expect(rule(html, '.frame-area')).toContain('overflow-x:auto');
    // A grid item's minimum is its content unless set: the column would grow past the screen instead.
    expect(rule(html, '.layout>section')).toContain('min-width:0');
    // On a wide screen the preview column holds the 800 px frame and its border (1280 px screens too).
    expect(html).toContain('.layout{grid-template-columns:minmax(320px,1fr) minmax(0,802px)}');
  });
});

// gallery-app.js on a template page, run against a stand-in for the few browser objects it touches.
class FakeElement {
  hidden = false;
  disabled = false;
  value = '';
  defaultValue = '';
  textContent = '';
  className = '';
  srcdoc = '';
  dataset: Record<string, string> = {};
  children: unknown[] = [];
  attributes: Record<string, string> = {};
  listeners: Record<string, ((event: unknown) => unknown)[]> = {};
  constructor(public id = '') {}
  get classList() {
    const names = () => this.className.split(/\s+/).filter(Boolean);
    return {
      contains: (c: string) => names().includes(c),
      remove: (c: string) => {
        this.className = names()
          .filter((n) => n !== c)
          .join(' ');
      },
      toggle: (c: string, on: boolean) => {
        this.className = [...names().filter((n) => n !== c), ...(on ? [c] : [])].join(' ');
      },
    };
  }
  setAttribute(name: string, value: string) {
    this.attributes[name] = String(value);
  }
  hasAttribute(name: string) {
    return name in this.attributes;
  }
  addEventListener(type: string, fn: (event: unknown) => unknown) {
    this.listeners[type] = [...(this.listeners[type] ?? []), fn];
  }
  async dispatch(type: string, target: unknown = this) {
    for (const fn of this.listeners[type] ?? []) await fn({ type, target, preventDefault() {} });
  }
  replaceChildren(...children: unknown[]) {
    this.children = children;
    this.textContent = children.map((c) => (c instanceof FakeElement ? c.textContent : String(c))).join('');
  }
  append(...children: unknown[]) {
    this.replaceChildren(...this.children, ...children);
  }
}

function runTemplatePage() {
  const ids = [
    'toolbar',
    'project',
    'frame',
    'text',
    'subject',
    'preheader',
    'data',
    'data-status',
    'errors',
    'reset',
    'send',
    'send-to',
    'send-button',
    'send-status',
    'send-note',
    'apply',
  ];
  const el = Object.fromEntries(ids.map((id) => [id, new FakeElement(id)]));
  const main = new FakeElement('gallery');
  main.dataset = { template: 'login-code', version: 'v1' };
  const checked: Record<string, string> = { scheme: 'light', width: '800', view: 'html' };
  Object.assign(el.toolbar!, {
    querySelector: (sel: string) => ({ value: checked[/name="(\w+)"/.exec(sel)![1]!] }),
  });
  Object.assign(el.project!, {
    selectedOptions: [{ dataset: { sendNote: 'Sent through Demo App.' }, hasAttribute: () => true }],
  });
  el.data!.value = el.data!.defaultValue = '{"code":"482913"}';
  el['send-status']!.className = 'status';
  el['send-to']!.value = 'jane@example.com';

  const answers: Record<string, { status: number; body: unknown }> = {};
  const timers: (() => unknown)[] = [];
  vm.runInNewContext(galleryScript(), {
    document: {
      getElementById: (id: string) => (id === 'gallery' ? main : (el[id] ?? null)),
      querySelectorAll: () => [],
      createElement: () => new FakeElement(),
    },
    fetch: async (url: string) => {
      const answer = answers[url.slice(url.lastIndexOf('/'))]!;
      return { status: answer.status, json: async () => answer.body };
    },
    location: { href: 'http://localhost/dev/templates/login-code' },
    history: { replaceState() {} },
    URL,
    setTimeout: (fn: () => unknown) => timers.push(fn),
    clearTimeout: () => {},
  });
  const settle = () => new Promise((r) => setTimeout(r, 5));
  return {
    el,
    answers,
    /** The data as typed, and the render the editor schedules once typing pauses. */
    type: async (value: string) => {
      el.data!.value = value;
      await el.data!.dispatch('input');
      for (const fn of timers.splice(0)) await fn();
      await settle();
    },
    send: () => el.send!.dispatch('submit'),
    changeScheme: async (scheme: string) => {
      checked.scheme = scheme;
      await el.toolbar!.dispatch('change', { name: 'scheme' });
      await settle();
    },
  };
}

const RENDERED = {
  ok: true,
  subject: 'S',
  preheader: 'P',
  html: '<p>x</p>',
  text: 'x',
  frameHtml: '<p>x</p>',
};
const REFUSED = {
  ok: false,
  error: {
    code: 'invalid_template_data',
    message: 'The data does not match the template.',
    details: [{ path: '/data/code', message: 'is required' }],
  },
};

describe('the template page script', () => {
  it('clears a refused send ("Not sent: …") once the data changes, and when a render succeeds', async () => {
    const page = runTemplatePage();
    const status = page.el['send-status']!;
    page.answers['/send'] = { status: 400, body: REFUSED };
    page.answers['/render'] = { status: 400, body: REFUSED };
    await page.send();
    expect(status.textContent).toMatch(/^Not sent: invalid_template_data/);
    expect(status.className).toBe('status bad');

    // The data changes (still not valid): the refusal was about the data before.
    await page.type('{}');
    expect(status.textContent).toBe('');
    expect(status.className).toBe('status');
    expect(page.el['data-status']!.className).toBe('status bad');

    // Refused again; then a render succeeds without the data changing (the scheme toggle).
    await page.send();
    expect(status.textContent).toMatch(/^Not sent: /);
    page.answers['/render'] = { status: 200, body: RENDERED };
    await page.changeScheme('dark');
    expect(page.el['data-status']!.textContent).toBe('Valid: the preview shows this data.');
    expect(status.textContent).toBe('');
    expect(status.className).toBe('status');
  });

  it('keeps an accepted send’s link when the data changes', async () => {
    const page = runTemplatePage();
    page.answers['/send'] = {
      status: 200,
      body: {
        ok: true,
        status: 'accepted',
        messageId: 'msg_X',
        environmentName: 'development',
        inboxUrl: '/dev/inbox',
        messageUrl: '/dev/inbox/msg_X',
      },
    };
    page.answers['/render'] = { status: 200, body: RENDERED };
    await page.send();
    await page.type('{"code":"111111"}');
    expect(page.el['send-status']!.textContent).toMatch(/^Accepted as msg_X/);
    expect(page.el['send-status']!.className).toBe('status good');
  });
});

describe('the field table', () => {
  it('has a row for every property of the JSON Schema, nested ones included', () => {
    for (const t of templates) {
      for (const v of t.versions) {
        const schema = jsonSchemaFor(v) as { properties: Record<string, { properties?: object }> };
        const expected = Object.entries(schema.properties).flatMap(([name, s]) => [
          `/${name}`,
          ...Object.keys(s.properties ?? {}).map((k) => `/${name}/${k}`),
        ]);
        expect(
          fieldRows(v)
            .map((r) => r.path)
            .sort(),
          `${t.id} ${v.version}`,
        ).toEqual(expected.sort());
      }
    }
  });
});

describe('the index filter', () => {
  it('needs every term, in any of id, route, operation, category or description', () => {
    const shown = (q: string) => templates.filter((t) => matchesQuery(t, q)).map((t) => t.id);
    expect(shown('')).toHaveLength(templates.length);
    expect(shown('login')).toContain('login-code');
    expect(shown('LOGIN code')).toEqual(['login-code']);
    expect(shown('sendMagicLink')).toEqual(['magic-link']);
    expect(shown('/billing/')).toHaveLength(
      templates.filter((t) => t.routePath.startsWith('/billing/')).length,
    );
    expect(shown('nothing-like-this')).toEqual([]);
  });
});

describe('findGalleryVersion', () => {
  it('finds drafts too, and defaults to the latest published version', () => {
    expect(findGalleryVersion('activity-digest', 'v2').version.status).toBe('draft');
    expect(findGalleryVersion('activity-digest').version.version).toBe('v1');
    expect(findGalleryVersion('welcome').version.version).toBe('v2');
    expect(() => findGalleryVersion('nope')).toThrow(expect.objectContaining({ code: 'template_not_found' }));
    expect(() => findGalleryVersion('welcome', 'v9')).toThrow(
      expect.objectContaining({ code: 'template_version_not_found' }),
    );
  });
});
