import type { Field } from './blocks/types.js';
import type { TemplateVersion } from './model.js';

const SAMPLE_STRINGS: Record<string, string> = {
  reason: 'Too many failed sign-in attempts',
  device: 'Firefox on macOS',
  country: 'Lisbon, Portugal',
  ip: '203.0.113.42',
  amount: '€49.00',
  invoiceNumber: 'INV-2026-0142',
  paymentMethod: 'Visa ending 4242',
  plan: 'Team (monthly)',
  previousPlan: 'Starter',
  newPlan: 'Team',
  card: 'Visa ending 4242',
  expiresAt: '12/2026',
  teamName: 'Design',
  role: 'Editor',
  previousRole: 'Viewer',
  newRole: 'Editor',
  title: 'Review the Q4 roadmap',
  itemName: 'Q4 roadmap.pdf',
  permission: 'Can comment',
  reportName: 'Weekly revenue',
  period: '16–22 Nov 2026',
  mentions: '3',
  comments: '12',
  tasks: '2',
  metric: 'API requests',
  usage: '80,000',
  threshold: '75,000',
  fields: 'Display name, time zone',
  phoneNumber: '+351 •••• ••42',
  keyName: 'CI deploy key',
  passkeyName: 'MacBook Touch ID',
  activity: 'Password reset requested',
  message: 'I am joining the design review next week.',
  assignedBy: 'Jane Doe',
  sharedBy: 'Jane Doe',
  requestedBy: 'Jane Doe',
};

function sampleFor(f: Field): unknown {
  switch (f.kind) {
    case 'code':
      return '482913';
    case 'url':
      return 'https://app.example.com/open';
    case 'actionButton':
      return { url: 'https://app.example.com/account?ref=email' };
    case 'detailsTable':
      return Object.fromEntries(
        f.rows.map((r) => [
          r.key,
          r.format === 'date-time'
            ? '2026-11-22T10:15:30Z'
            : r.format === 'email'
              ? 'jane@example.com'
              : (SAMPLE_STRINGS[r.key] ?? r.label),
        ]),
      );
    case 'text':
      return undefined;
  }
}

/** Realistic example data for a version: every required field, every table row, a button URL. */
export function fixtureFor(v: TemplateVersion): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const f of v.fields) {
    const sample = sampleFor(f);
    if (sample !== undefined) data[f.name] = sample;
  }
  return data;
}
