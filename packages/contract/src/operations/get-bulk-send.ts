// POST /v1/contacts/send/get: a bulk send's progress by message status (extension).
import { type Static, Type } from '@sinclair/typebox';
import { SkipCounts } from './shared/bulk-send.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { GroupSlug } from './shared/group.js';
import { BulkJobId } from './shared/ids.js';
import { Metadata } from './shared/metadata.js';
import type { Operation } from './shared/operation.js';
import { NullableTimestamp, Timestamp } from './shared/timestamp.js';

export const GetBulkSendRequest = Type.Object({ jobId: BulkJobId }, { additionalProperties: false });
export type GetBulkSendRequest = Static<typeof GetBulkSendRequest>;

export const BulkJob = Type.Object(
  {
    jobId: BulkJobId,
    status: Type.Union(
      [
        Type.Literal('running'),
        Type.Literal('completed'),
        Type.Literal('paused_bounce_rate'),
        Type.Literal('canceled'),
      ],
      {
        description:
          'running while messages wait; completed when none does; paused_bounce_rate when hard bounces passed 5% after 200 attempts (an operator resumes or cancels it)',
      },
    ),
    projectId: Type.String(),
    environmentId: Type.String(),
    templateId: Type.String(),
    templateVersion: Type.String(),
    target: Type.Object(
      {
        groupSlug: Type.Optional(GroupSlug),
        contactCount: Type.Integer({ minimum: 0, description: 'contacts named by id or email' }),
      },
      { additionalProperties: false },
    ),
    queued: Type.Integer({ minimum: 0, description: 'messages queued when the job was created' }),
    skipped: SkipCounts,
    progress: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description: 'messages by current status (queued, sending, deferred, sent, delivered, bounced, …)',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    pausedAt: NullableTimestamp,
    canceledAt: NullableTimestamp,
    metadata: Metadata,
  },
  { additionalProperties: false },
);

export const GetBulkSendResponse = Type.Object(
  { ok: Type.Literal(true), job: BulkJob },
  { additionalProperties: false },
);
export type GetBulkSendResponse = Static<typeof GetBulkSendResponse>;

export const getBulkSend = {
  method: 'POST',
  path: '/v1/contacts/send/get',
  sdk: 'contacts.getSend',
  summary: 'A bulk send’s progress by message status (extension)',
  body: GetBulkSendRequest,
  response: GetBulkSendResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'job_not_found'],
  example: {
    body: { jobId: 'job_01M81C1XJB7Y4KHB01G4B1P0M5' },
    response: {
      ok: true,
      job: {
        jobId: 'job_01M81C1XJB7Y4KHB01G4B1P0M5',
        status: 'running',
        projectId: 'prj_01M81C1XJBK8H34T187GBDP8V9',
        environmentId: 'env_01M81C1XJB2NNCEJ58HV846MWZ',
        templateId: 'reminder',
        templateVersion: 'v1',
        target: { groupSlug: 'beta-testers', contactCount: 0 },
        queued: 1834,
        skipped: { unsubscribed: 12, complained: 1, suppressed: 3, duplicate: 0, not_found: 0 },
        progress: { queued: 1200, sending: 16, sent: 610, bounced: 8 },
        createdAt: '2026-11-22T10:15:30.123Z',
        updatedAt: '2026-11-22T10:16:02.511Z',
        pausedAt: null,
        canceledAt: null,
        metadata: { campaign: 'winter-reminder' },
      },
    },
  },
} as const satisfies Operation;
