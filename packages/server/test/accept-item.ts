// One login-code send as accept_messages() takes it, for the tests that call the accept directly.

import type { Scope } from '@mailsvc/testkit/harness';
import type { AcceptedMessage, AcceptItem } from '../src/db/repositories/send.js';
import { newId } from '../src/ids.js';

export function acceptItem(
  scope: Scope,
  now: Date,
  opts: {
    key?: string;
    message?: Partial<AcceptedMessage>;
  } = {},
): AcceptItem {
  return {
    message: {
      id: newId('msg', now.getTime()),
      tenantId: scope.tenantId,
      projectId: scope.projectId,
      environmentId: scope.environmentId,
      apiKeyId: scope.keyId,
      templateId: 'login-code',
      templateVersion: 'v1',
      category: 'security',
      priority: 0,
      toEmail: 'jane@example.com',
      fromEmail: 'notifications@mailsvc.test',
      fromName: null,
      replyTo: null,
      data: { code: '482913' },
      metadata: null,
      scheduledAt: null,
      expiresAt: new Date(now.getTime() + 3_600_000),
      ...opts.message,
    },
    period: '2026-11',
    ...(opts.key && {
      idempotency: {
        key: opts.key,
        requestSha256: Buffer.alloc(32, 7),
        expiresAt: new Date(now.getTime() + 24 * 3_600_000),
      },
    }),
    eventId: newId('evt', now.getTime()),
    now,
    defaultDomain: 'mailsvc.test',
  };
}
