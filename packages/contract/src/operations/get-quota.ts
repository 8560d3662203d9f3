// GET /v1/quota: the operational quota of the key's environment.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { Timestamp } from './shared/timestamp.js';

export const Quota = Type.Object(
  {
    tenantId: Type.String({ pattern: '^ten_' }),
    projectId: Type.String({ pattern: '^prj_' }),
    environmentId: Type.String({ pattern: '^env_' }),
    planId: Type.String(),
    accessStatus: Type.Union([Type.Literal('active'), Type.Literal('trialing'), Type.Literal('suspended')], {
      description: 'billing access state (an ended trial is answered with 402 trial_expired instead)',
    }),
    sendingStatus: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('blocked')]),
    period: Type.Object(
      {
        id: Type.String({
          pattern: '^[0-9]{4}-[0-9]{2}$',
          description: 'the calendar month in UTC, YYYY-MM',
        }),
        startsAt: Timestamp,
        endsAt: { ...Timestamp, description: 'the start of the next month (exclusive)' },
      },
      { additionalProperties: false },
    ),
    monthly: Type.Object(
      {
        limit: Type.Integer({ minimum: 0 }),
        used: Type.Integer({ minimum: 0, description: 'accepted messages of the whole tenant this month' }),
        remaining: Type.Integer({ minimum: 0 }),
        overageAllowed: Type.Boolean(),
        overageEmails: Type.Integer({ minimum: 0 }),
        status: Type.Union([Type.Literal('available'), Type.Literal('overage'), Type.Literal('exhausted')]),
      },
      { additionalProperties: false },
    ),
    environment: Type.Object(
      { usedThisMonth: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type Quota = Static<typeof Quota>;

export const QuotaResponse = Type.Object(
  { ok: Type.Literal(true), quota: Quota },
  { additionalProperties: false },
);
export type QuotaResponse = Static<typeof QuotaResponse>;

export const getQuota = {
  method: 'GET',
  path: '/v1/quota',
  sdk: 'quota.get',
  scopes: ['full', 'send'],
  summary: "The operational quota of the key's environment",
  response: QuotaResponse,
  errors: [...API_KEY_ERRORS, ...ACCESS_ERRORS],
  example: {
    response: {
      ok: true,
      quota: {
        tenantId: 'ten_01M81C1XJB1VHQ67YATMSMP7K4',
        projectId: 'prj_01M81C1XJBK8H34T187GBDP8V9',
        environmentId: 'env_01M81C1XJB2NNCEJ58HV846MWZ',
        planId: 'starter',
        accessStatus: 'active',
        sendingStatus: 'active',
        period: { id: '2026-11', startsAt: '2026-11-01T00:00:00.000Z', endsAt: '2026-12-01T00:00:00.000Z' },
        monthly: {
          limit: 10000,
          used: 1250,
          remaining: 8750,
          overageAllowed: false,
          overageEmails: 0,
          status: 'available',
        },
        environment: { usedThisMonth: 1250 },
      },
    },
  },
} as const satisfies Operation;
