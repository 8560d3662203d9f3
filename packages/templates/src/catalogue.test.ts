import { describe, expect, it } from 'vitest';
import {
  getFixture,
  getTemplate,
  jsonSchemaFor,
  listTemplates,
  renderVersion,
  validateTemplateData,
} from './index.js';
import { TemplateNotFoundError, type TemplateVersion, TemplateVersionNotFoundError } from './model.js';

const ctx = {
  projectName: 'Acme',
  environmentName: 'production',
  supportEmail: 'support@acme.test',
  unsubscribeUrl: 'https://mail.acme.test/u/tok',
};

const DESIGN_ROUTES =
  `auth/account-locked auth/account-unlocked auth/email-changed auth/email-change-requested auth/login-code
auth/magic-link auth/mfa-disabled auth/mfa-enabled auth/new-sign-in auth/passkey-added auth/passkey-removed auth/password-changed
auth/password-reset auth/recovery-codes-generated auth/suspicious-activity auth/verification-code auth/verify-email account/welcome
account/deletion-scheduled account/deleted account/data-export-ready account/api-key-created account/action-required account/phone-number-changed
account/reactivated account/profile-updated team/invitation team/invitation-accepted team/member-removed team/role-changed
team/ownership-transferred team/access-requested billing/payment-failed billing/payment-receipt billing/invoice-available
billing/subscription-started billing/subscription-renewing billing/subscription-canceled billing/trial-ending billing/trial-ended
billing/card-expiring billing/refund-issued billing/plan-changed billing/usage-threshold-reached notifications/mention
notifications/comment-reply notifications/task-assigned notifications/reminder notifications/item-shared
notifications/approval-requested notifications/report-ready notifications/activity-digest`.split(/\s+/);

describe('the catalogue', () => {
  it('has the 52 routes of DESIGN.md §6 (51 and account/action-required) with operation names send + PascalCase', () => {
    const all = listTemplates();
    expect(all.map((t) => t.routePath.slice(1))).toEqual(DESIGN_ROUTES);
    expect(all.find((t) => t.id === 'login-code')!.operationName).toBe('sendLoginCode');
    expect(all.find((t) => t.id === 'usage-threshold-reached')!.operationName).toBe(
      'sendUsageThresholdReached',
    );
  });

  it('puts auth in security, notifications in notification, everything else in transactional', () => {
    for (const t of listTemplates()) {
      const group = t.routePath.split('/')[1];
      const expected =
        group === 'auth' ? 'security' : group === 'notifications' ? 'notification' : 'transactional';
      expect(t.category, t.id).toBe(expected);
      expect(t.versions[0]).toMatchObject({ version: 'v1', status: 'published' });
    }
  });

  it('requires actionButton.url where DESIGN.md brackets it, and code for the code templates', () => {
    const needsButton = [
      'email-change-requested',
      'magic-link',
      'password-reset',
      'verify-email',
      'data-export-ready',
      'invitation',
    ];
    for (const id of needsButton) expect(getTemplate(id).version.required, id).toContain('actionButton');
    for (const id of ['login-code', 'verification-code'])
      expect(getTemplate(id).version.required, id).toEqual(['code']);
  });
});

// The five templates whose fields and defaults template-route-wrapper.md §2 fixes.
const SEED_IDS = new Set(['account-locked', 'email-changed', 'login-code', 'magic-link', 'mfa-disabled']);

/** Where a message means nothing without the field: a link the reader must follow, or the facts it reports. */
const REQUIRED: Record<string, string[]> = {
  'email-change-requested': ['actionButton.url'],
  'login-code': ['code'],
  'magic-link': ['actionButton.url'],
  'password-reset': ['actionButton.url'],
  'verification-code': ['code'],
  'verify-email': ['actionButton.url'],
  'deletion-scheduled': ['deletionDetails.deleteAt'],
  'data-export-ready': ['actionButton.url'],
  invitation: ['actionButton.url'],
  'action-required': ['issueDetails.item', 'issueDetails.problem', 'actionButton.url'],
  'invitation-accepted': ['memberDetails.memberEmail'],
  'member-removed': ['removalDetails.teamName'],
  'role-changed': ['roleDetails.newRole'],
  'access-requested': ['requestDetails.requesterEmail', 'actionButton.url'],
  'payment-failed': ['invoiceDetails.amount', 'actionButton.url'],
  'payment-receipt': ['receiptDetails.invoiceNumber', 'receiptDetails.amount', 'receiptDetails.issuedAt'],
  'invoice-available': ['invoiceDetails.invoiceNumber', 'invoiceDetails.amount', 'actionButton.url'],
  'subscription-renewing': ['subscriptionDetails.amount', 'subscriptionDetails.renewsAt'],
  'card-expiring': ['actionButton.url'],
  'refund-issued': ['refundDetails.amount'],
  'plan-changed': ['planDetails.newPlan'],
  'usage-threshold-reached': ['usageDetails.metric', 'usageDetails.threshold'],
  'task-assigned': ['taskDetails.title'],
  'item-shared': ['actionButton.url'],
  'approval-requested': ['actionButton.url'],
  'report-ready': ['actionButton.url'],
};

interface RequiredNode {
  required?: string[];
  properties?: Record<string, RequiredNode>;
}

/** `name` for a required top-level field, `name.key` for each required key inside it. */
function requiredPaths(schema: RequiredNode): string[] {
  return (schema.required ?? []).flatMap((name) => {
    const inner = schema.properties?.[name]?.required;
    return inner ? inner.map((key) => `${name}.${key}`) : [name];
  });
}

const textDefault = (v: TemplateVersion, name: string) => {
  const f = v.fields.find((x) => x.name === name);
  return f?.kind === 'text' ? (f.default ?? '') : '';
};
const normalised = (s: string) => s.toLowerCase().replace(/[.!?\s]+$/, '');

describe('required fields', () => {
  it.each(listTemplates().flatMap((t) => t.versions.map((v) => [`${t.id} ${v.version}`, t.id, v] as const)))(
    '%s requires what its message needs and no more',
    (_name, id, version) => {
      expect(requiredPaths(jsonSchemaFor(version) as RequiredNode)).toEqual(REQUIRED[id] ?? []);
      for (const path of REQUIRED[id] ?? []) {
        const data = structuredClone(getFixture(version)) as Record<string, Record<string, unknown>>;
        const [name, key] = path.split('.') as [string, string | undefined];
        if (key) delete data[name]![key];
        else delete data[name];
        const checked = validateTemplateData(version, data);
        expect(checked.ok ? [] : checked.errors, path).toContainEqual({
          path: `/${path.replace('.', '/')}`,
          message: 'is required',
        });
        if (key) {
          const empty = validateTemplateData(version, { ...data, [name]: { ...data[name], [key]: '' } });
          expect(empty.ok, `${path} may not be empty`).toBe(false);
        }
      }
    },
  );
});

describe('preheaders', () => {
  const versions = listTemplates().flatMap((t) => t.versions.map((v) => [t.id, v] as const));

  it('are never shared by two template versions', () => {
    const seen = new Map<string, string>();
    for (const [id, v] of versions) {
      const preheader = normalised(textDefault(v, 'preheader'));
      expect(seen.get(preheader), `${id} ${v.version} repeats the preheader of ${seen.get(preheader)}`).toBe(
        undefined,
      );
      seen.set(preheader, `${id} ${v.version}`);
    }
  });

  it('add to the heading and intro instead of repeating them (the seed fixes its five)', () => {
    for (const [id, v] of versions.filter(([id]) => !SEED_IDS.has(id))) {
      const preheader = normalised(textDefault(v, 'preheader'));
      expect(preheader, `${id} ${v.version}`).not.toBe('');
      for (const other of ['heading', 'intro']) {
        const text = normalised(textDefault(v, other));
        expect(text.startsWith(preheader) || preheader.startsWith(text), `${id} ${v.version} ${other}`).toBe(
          false,
        );
      }
    }
  });
});

describe.each(listTemplates().flatMap((t) => t.versions.map((v) => [`${t.id} ${v.version}`, v] as const)))(
  '%s',
  (_name, version) => {
    it('renders from a fixture that passes its schema', () => {
      const checked = validateTemplateData(version, getFixture(version));
      expect(checked.ok ? [] : checked.errors).toEqual([]);
      if (!checked.ok) return;
      const out = renderVersion(version, checked.data, ctx);
      expect(out.subject.length).toBeGreaterThan(0);
      expect(out.subject).not.toMatch(/[\r\n]/);
      expect(out.html).toMatch(/^<!DOCTYPE html><html lang="en"/);
      expect(out.html).toContain('role="presentation"');
      expect(out.text).not.toContain('<');
      const button = (checked.data.actionButton as { url?: string } | undefined)?.url;
      if (button) {
        expect(out.text).toContain(button);
        expect(out.html).toContain(`href="${button.replaceAll('&', '&amp;')}"`);
      }
      if (version.category === 'notification') {
        expect(out.html).toContain('href="https://mail.acme.test/u/tok"');
        expect(out.text).toContain('Unsubscribe: https://mail.acme.test/u/tok');
      } else {
        expect(out.text).not.toContain('Unsubscribe');
      }
    });

    it('refuses unknown properties with their path', () => {
      const checked = validateTemplateData(version, { ...getFixture(version), bogus: 1 });
      expect(checked.ok).toBe(false);
      if (!checked.ok)
        expect(checked.errors).toContainEqual({ path: '/bogus', message: 'is not an allowed property' });
    });
  },
);

describe('versions', () => {
  it('uses the latest published version by default and serves a published v2', () => {
    expect(getTemplate('welcome').version.version).toBe('v2');
    expect(getTemplate('welcome', 'v1').version.version).toBe('v1');
    const v1 = renderVersion(getTemplate('welcome', 'v1').version, validOf('welcome', 'v1'), ctx);
    const v2 = renderVersion(getTemplate('welcome', 'v2').version, validOf('welcome', 'v2'), ctx);
    expect(v1.subject).not.toBe(v2.subject);
  });

  it('never serves a draft version, and tells an unknown template from an unknown version', () => {
    expect(getTemplate('activity-digest').version.version).toBe('v1');
    expect(() => getTemplate('activity-digest', 'v2')).toThrow(TemplateVersionNotFoundError);
    expect(() => getTemplate('login-code', 'v9')).toThrow(TemplateVersionNotFoundError);
    expect(() => getTemplate('no-such-template')).toThrow(TemplateNotFoundError);
  });
});

function validOf(id: string, version?: string) {
  const v = getTemplate(id, version).version;
  const checked = validateTemplateData(v, getFixture(v));
  if (!checked.ok) throw new Error('fixture invalid');
  return checked.data;
}

describe('JSON Schema', () => {
  it('is strict everywhere, including nested objects', () => {
    const schema = jsonSchemaFor(getTemplate('account-locked').version) as {
      additionalProperties: boolean;
      properties: Record<string, { additionalProperties?: boolean }>;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.actionButton!.additionalProperties).toBe(false);
    expect(schema.properties.lockDetails!.additionalProperties).toBe(false);
  });

  it('returns a new object with defaults and leaves the input alone', () => {
    const input = { code: '1234' };
    const checked = validateTemplateData(getTemplate('login-code').version, input);
    expect(input).toEqual({ code: '1234' });
    expect(checked.ok && checked.data.heading).toBe('Your login code');
  });

  it('lists every failing field', () => {
    const checked = validateTemplateData(getTemplate('magic-link').version, {
      heading: 'x'.repeat(181),
      actionButton: { url: 'ftp://x' },
    });
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.errors.map((e) => e.path).sort()).toEqual(['/actionButton/url', '/heading']);
    }
  });
});
