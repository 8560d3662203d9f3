// The five templates the seed tabulates, pinned field by field (template-route-wrapper.md §2).
import { describe, expect, it } from 'vitest';
import { getTemplate, jsonSchemaFor, validateTemplateData } from './index.js';

type Row = [
  field: string,
  type: 'text' | 'url' | 'code' | 'detailsTable',
  max: number | null,
  def: string | null,
];

interface SchemaNode {
  type?: string;
  maxLength?: number;
  default?: string;
  pattern?: string;
  format?: string;
  required?: string[];
  properties?: Record<string, SchemaNode>;
}

function nodeAt(schema: SchemaNode, field: string): SchemaNode {
  return field.split('.').reduce<SchemaNode>((s, part) => s.properties![part]!, schema);
}

function pin(id: string, rows: Row[], required: string[]) {
  const version = getTemplate(id, 'v1').version;
  const schema = jsonSchemaFor(version) as SchemaNode;
  const topLevel = [...new Set(rows.map(([f]) => f.split('.')[0]!))].sort();
  expect(Object.keys(schema.properties!).sort()).toEqual(topLevel);
  for (const [field, type, max, def] of rows) {
    const node = nodeAt(schema, field);
    if (type === 'detailsTable') {
      expect(node.type, field).toBe('object');
      continue;
    }
    expect(node.type, field).toBe('string');
    expect(node.maxLength, field).toBe(max);
    expect(node.default ?? null, field).toBe(def);
    if (type === 'url') expect(node.pattern, field).toBeDefined();
  }
  expect(schema.required ?? []).toEqual(required);
  return schema;
}

function pinTable(
  schema: SchemaNode,
  id: string,
  name: string,
  heading: string,
  keys: [string, string, string][],
) {
  const table = getTemplate(id, 'v1').version.fields.find((f) => f.name === name);
  expect(table).toMatchObject({ kind: 'detailsTable', heading });
  if (table?.kind !== 'detailsTable') return;
  expect(table.rows.map((r) => [r.key, r.label, r.format])).toEqual(keys);
  const node = schema.properties![name]!;
  for (const [key, , format] of keys) {
    expect(node.properties![key]!.format ?? 'string', key).toBe(format);
  }
}

describe('seed templates', () => {
  it('account-locked', () => {
    const s = pin(
      'account-locked',
      [
        ['actionButton.label', 'text', 120, 'Unlock account'],
        ['actionButton.url', 'url', 2048, null],
        ['heading', 'text', 180, 'Account locked'],
        ['intro', 'text', 1000, 'Your account has been locked for security.'],
        ['lockDetails', 'detailsTable', null, null],
        ['notice', 'text', 1000, 'You may need to verify your identity before access is restored.'],
        ['preheader', 'text', 220, 'Your account has been locked for security.'],
        ['subject', 'text', 180, 'Account locked'],
      ],
      [],
    );
    pinTable(s, 'account-locked', 'lockDetails', 'Lock details', [
      ['lockedAt', 'Locked', 'date-time'],
      ['reason', 'Reason', 'string'],
    ]);
  });

  it('email-changed', () => {
    const s = pin(
      'email-changed',
      [
        ['actionButton.label', 'text', 120, 'Review account'],
        ['actionButton.url', 'url', 2048, null],
        ['changeDetails', 'detailsTable', null, null],
        ['footerNote', 'text', 1000, 'If you did not make this change, review your account security.'],
        ['heading', 'text', 180, 'Email address changed'],
        ['intro', 'text', 1000, 'The email address on your account was changed.'],
        ['preheader', 'text', 220, 'The email address on your account was changed.'],
        ['subject', 'text', 180, 'Email address changed'],
      ],
      [],
    );
    pinTable(s, 'email-changed', 'changeDetails', 'Change details', [
      ['changedAt', 'Changed', 'date-time'],
      ['oldEmail', 'Previous email', 'email'],
      ['newEmail', 'New email', 'email'],
    ]);
  });

  it('login-code requires code', () => {
    pin(
      'login-code',
      [
        ['code', 'code', 240, null],
        ['footerNote', 'text', 1000, 'If you did not request this code, you can safely ignore this email.'],
        ['heading', 'text', 180, 'Your login code'],
        ['intro', 'text', 1000, 'Use this code to continue signing in.'],
        ['preheader', 'text', 220, 'Use this code to continue signing in.'],
        ['securityNote', 'text', 1000, 'For security, this code will expire soon.'],
        ['subject', 'text', 180, 'Your login code'],
      ],
      ['code'],
    );
    const checked = validateTemplateData(getTemplate('login-code').version, {});
    expect(checked.ok ? [] : checked.errors).toEqual([{ path: '/code', message: 'is required' }]);
  });

  it('magic-link requires actionButton and actionButton.url, and its subject uses {{projectName}}', () => {
    const s = pin(
      'magic-link',
      [
        ['actionButton.label', 'text', 120, 'Sign in'],
        ['actionButton.url', 'url', 2048, null],
        ['footerNote', 'text', 1000, 'If you did not request this email, you can safely ignore it.'],
        ['heading', 'text', 180, 'Sign in to your account'],
        [
          'intro',
          'text',
          1000,
          'Use this secure link to sign in. This link is private and will expire soon.',
        ],
        ['preheader', 'text', 220, 'Use this secure link to sign in.'],
        ['subject', 'text', 180, 'Your sign-in link for {{projectName}}'],
      ],
      ['actionButton'],
    );
    expect(s.properties!.actionButton!.required).toEqual(['url']);
    const v = getTemplate('magic-link').version;
    const none = validateTemplateData(v, {});
    expect(none.ok ? [] : none.errors).toEqual([{ path: '/actionButton', message: 'is required' }]);
    const noUrl = validateTemplateData(v, { actionButton: { label: 'Go' } });
    expect(noUrl.ok ? [] : noUrl.errors).toEqual([{ path: '/actionButton/url', message: 'is required' }]);
  });

  it('mfa-disabled', () => {
    const s = pin(
      'mfa-disabled',
      [
        ['actionButton.label', 'text', 120, 'Review account'],
        ['actionButton.url', 'url', 2048, null],
        ['footerNote', 'text', 1000, 'If you did not make this change, review your account security.'],
        ['heading', 'text', 180, 'Multi-factor authentication disabled'],
        ['intro', 'text', 1000, 'Multi-factor authentication has been disabled for your account.'],
        ['notice', 'text', 1000, 'Your account may be less protected without multi-factor authentication.'],
        ['preheader', 'text', 220, 'Multi-factor authentication has been removed from your account.'],
        ['securityDetails', 'detailsTable', null, null],
        ['subject', 'text', 180, 'Multi-factor authentication disabled'],
      ],
      [],
    );
    pinTable(s, 'mfa-disabled', 'securityDetails', 'Security details', [
      ['disabledAt', 'Disabled', 'date-time'],
      ['device', 'Device', 'string'],
      ['country', 'Location', 'string'],
      ['ip', 'IP address', 'string'],
    ]);
  });
});
