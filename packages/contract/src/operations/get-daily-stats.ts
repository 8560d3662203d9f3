// POST /v1/stats/daily: the environment's mail per UTC day (extension, DESIGN.md §14's overview):
// messages accepted, delivered, bounced, complained, failed and recipients unsubscribed, with the
// window's bounce and complaint rates beside the thresholds mailbox providers enforce.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

/** Gmail's and Yahoo's bulk-sender rule: stay under 0.3 % spam complaints. */
export const COMPLAINT_RATE_LIMIT = 0.003;
/** Amazon SES puts an account under review at 5 % bounces (the bulk sends' guard pauses there too). */
export const BOUNCE_RATE_LIMIT = 0.05;
export const STATS_MAX_DAYS = 90;

export const GetDailyStatsRequest = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: STATS_MAX_DAYS,
        description: 'how many UTC days, ending today (default 30)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type GetDailyStatsRequest = Static<typeof GetDailyStatsRequest>;

const Count = Type.Integer({ minimum: 0 });

export const DailyStats = Type.Object(
  {
    date: Type.String({ description: 'the UTC day, YYYY-MM-DD' }),
    accepted: Type.Integer({
      minimum: 0,
      description: 'messages accepted that day (scheduled ones on the day they were accepted)',
    }),
    delivered: Type.Integer({
      minimum: 0,
      description: 'of those, the ones a receiving server took (status sent or delivered)',
    }),
    bounced: Count,
    complained: Count,
    failed: Type.Integer({ minimum: 0, description: 'failed, expired or refused at delivery (suppressed)' }),
    unsubscribed: Type.Integer({ minimum: 0, description: 'recipients who unsubscribed that day' }),
  },
  { additionalProperties: false },
);
export type DailyStats = Static<typeof DailyStats>;

const Rate = (description: string) =>
  Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description });

export const GetDailyStatsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    days: Type.Array(DailyStats, { description: 'oldest first, one entry per day, days without mail too' }),
    rates: Type.Object(
      {
        bounceRate: Rate('bounced ÷ (delivered + bounced) over the window; null without either'),
        complaintRate: Rate('complained ÷ delivered over the window; null without deliveries'),
        bounceRateLimit: Type.Number({ description: 'the bounce rate providers act at (0.05)' }),
        complaintRateLimit: Type.Number({
          description: 'the complaint rate providers act at (0.003, Gmail and Yahoo)',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type GetDailyStatsResponse = Static<typeof GetDailyStatsResponse>;

export const getDailyStats = {
  method: 'POST',
  path: '/v1/stats/daily',
  sdk: 'stats.daily',
  summary: 'The environment’s mail per UTC day, and its bounce and complaint rates (extension)',
  body: GetDailyStatsRequest,
  response: GetDailyStatsResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: {
    body: { days: 2 },
    response: {
      ok: true,
      days: [
        {
          date: '2026-11-21',
          accepted: 120,
          delivered: 117,
          bounced: 2,
          complained: 0,
          failed: 1,
          unsubscribed: 1,
        },
        {
          date: '2026-11-22',
          accepted: 98,
          delivered: 97,
          bounced: 1,
          complained: 0,
          failed: 0,
          unsubscribed: 0,
        },
      ],
      rates: {
        bounceRate: 0.0138,
        complaintRate: 0,
        bounceRateLimit: BOUNCE_RATE_LIMIT,
        complaintRateLimit: COMPLAINT_RATE_LIMIT,
      },
    },
  },
} as const satisfies Operation;
