// Sending domains as the API shows them (DESIGN.md §13): the records a tenant publishes, what the
// last DNS check found for each, and the domain's place in its lifecycle. docs/domains.md explains
// every field, state and problem code. Browser-safe.
import { type Static, Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp } from './timestamp.js';

export const DomainId = Type.String({
  pattern: '^dom_[0-9A-HJKMNP-TV-Z]{26}$',
  description: 'dom_… id of a sending domain',
});

export const DomainName = Type.String({
  minLength: 3,
  maxLength: 253,
  description: 'a domain name such as example.com or mail.example.com (lowercased; no trailing dot)',
});

export const DomainScopeSchema = Type.Union(
  [Type.Literal('environment'), Type.Literal('project'), Type.Literal('tenant')],
  {
    description:
      'whose mail the domain sends: the key’s environment (default), its project’s environments, or every environment of its tenant; a more specific domain wins',
  },
);

export const DomainStatusSchema = Type.Union(
  [Type.Literal('pending'), Type.Literal('verified'), Type.Literal('degraded'), Type.Literal('failed')],
  {
    description:
      'pending: waiting for its DKIM record (checked at 1, 5, 15 minutes, then hourly, for 72 h); verified: mail signs and sends; degraded: a record was seen missing or wrong twice in a row, mail still signs and sends, fix it before the grace period (72 h) ends; failed: sends from it answer 403 sending_domain_not_ready until POST /v1/domains/verify succeeds',
  },
);

export const ReturnPathStatusSchema = Type.Union(
  [Type.Literal('pending'), Type.Literal('verified'), Type.Literal('degraded')],
  {
    description:
      'verified: the envelope sender is bounces.<domain> (SPF and DMARC align); pending or degraded: bounces go to the operator’s bounce domain and mail is not held back',
  },
);

export const RecordProblem = Type.Object(
  {
    code: Type.String({ description: 'a stable code listed in docs/domains.md' }),
    message: Type.String({ description: 'what to change, in one sentence' }),
  },
  { additionalProperties: false },
);

export const DomainRecord = Type.Object(
  {
    purpose: Type.Union(
      [
        Type.Literal('dkim'),
        Type.Literal('dkim_next'),
        Type.Literal('dkim_retiring'),
        Type.Literal('return_path_mx'),
        Type.Literal('return_path_spf'),
        Type.Literal('dmarc'),
      ],
      {
        description:
          'dkim: the signing key; dkim_next: a rotation’s new key, used once it verifies; dkim_retiring: the replaced key, kept until `removableAt`; return_path_*: bounces.<domain>; dmarc: recommended, never required',
      },
    ),
    required: Type.Boolean({
      description: 'whether the domain (dkim) or its return path (return_path_*) waits for this record',
    }),
    type: Type.Union([Type.Literal('TXT'), Type.Literal('MX')]),
    host: Type.String({ description: 'the full name the record is published at' }),
    name: Type.String({
      description:
        'the host relative to the domain, what most DNS providers’ forms want (they append the domain themselves)',
    }),
    value: Type.String({ description: 'the value to publish (a TXT value as one string)' }),
    txtStrings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'a TXT value over 255 characters as the strings of at most 255 a zone file needs ("…" "…"); most DNS providers split it themselves',
      }),
    ),
    priority: Type.Optional(Type.Integer({ description: 'MX only' })),
    selector: Type.Optional(Type.String({ description: 'dkim* only' })),
    removableAt: Type.Optional(Timestamp),
    state: Type.Union(
      [
        Type.Literal('pending'),
        Type.Literal('verified'),
        Type.Literal('missing'),
        Type.Literal('wrong'),
        Type.Literal('unknown'),
      ],
      {
        description:
          'pending: not checked yet; missing; wrong (see found and problems); unknown: DNS could not be asked (a timeout or SERVFAIL), never read as missing',
      },
    ),
    found: Type.Array(Type.String(), { description: 'what DNS answered at the host for this type' }),
    problems: Type.Array(RecordProblem),
  },
  { additionalProperties: false },
);
export type DomainRecord = Static<typeof DomainRecord>;

export const SendingDomain = Type.Object(
  {
    domainId: DomainId,
    domain: Type.String(),
    scope: DomainScopeSchema,
    status: DomainStatusSchema,
    statusSince: Timestamp,
    returnPath: Type.Object(
      { host: Type.String(), status: ReturnPathStatusSchema },
      { additionalProperties: false },
    ),
    dkimSelector: Type.String({ description: 'the selector mail is signed with' }),
    records: Type.Array(DomainRecord),
    dmarc: Type.Union(
      [
        Type.Object(
          {
            policy: Type.Union([
              Type.Literal('none'),
              Type.Literal('quarantine'),
              Type.Literal('reject'),
              Type.Null(),
            ]),
            alignment: Type.String({ description: 'how this domain’s DKIM and SPF align with the policy' }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'the DMARC record seen by the last check; null before the first check' },
    ),
    verifiedAt: NullableTimestamp,
    lastCheckedAt: NullableTimestamp,
    nextCheckAt: Type.Union([Timestamp, Type.Null()], {
      description: 'null: not scheduled (failed; POST /v1/domains/verify checks again)',
    }),
    createdAt: Timestamp,
  },
  { additionalProperties: false },
);
export type SendingDomain = Static<typeof SendingDomain>;

const DKIM_P =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu5J7HgN0sWmJ3x3F0kqfPqQxq1d6mQ2yKc3sQ5mKq2m0dQ7yGg1o8Jm3bW5n9v7yJm2t2b9u5m8uY7sXnq1r2t5y0w9p4m6k3m8r2q7t1y6u4i9o0p3a5s7d8f2g4h6j8k1l3z5x7c9v2b4n6m8q1w3e5r7t9y2u4i6o8p0a2s4d6f8g1h3j5k7l9z2x4c6v8b1n3m5q7w9e2r4t6y8u1i3o5p7a9s2d4f6g8h1j3k5l7z9x2c4v6b8n1m3q5w7e9r2t4y6u8i1o3p5a7s9d2f4g6h8j1k3l5z7x9cIDAQAB';

export const SENDING_DOMAIN_EXAMPLE: SendingDomain = {
  domainId: 'dom_01JD0000000000000000000000',
  domain: 'example.com',
  scope: 'environment',
  status: 'verified',
  statusSince: '2026-11-22T10:20:30.123Z',
  returnPath: { host: 'bounces.example.com', status: 'verified' },
  dkimSelector: 'mailsvc-202611',
  records: [
    {
      purpose: 'dkim',
      required: true,
      type: 'TXT',
      host: 'mailsvc-202611._domainkey.example.com',
      name: 'mailsvc-202611._domainkey',
      value: `v=DKIM1; k=rsa; p=${DKIM_P}`,
      txtStrings: [`v=DKIM1; k=rsa; p=${DKIM_P.slice(0, 237)}`, DKIM_P.slice(237)],
      selector: 'mailsvc-202611',
      state: 'verified',
      found: [`v=DKIM1; k=rsa; p=${DKIM_P}`],
      problems: [],
    },
    {
      purpose: 'return_path_mx',
      required: true,
      type: 'MX',
      host: 'bounces.example.com',
      name: 'bounces',
      value: 'inbound.mailsvc.example.net',
      priority: 10,
      state: 'verified',
      found: ['10 inbound.mailsvc.example.net'],
      problems: [],
    },
    {
      purpose: 'return_path_spf',
      required: true,
      type: 'TXT',
      host: 'bounces.example.com',
      name: 'bounces',
      value: 'v=spf1 include:_spf.mailsvc.example.net -all',
      state: 'verified',
      found: ['v=spf1 include:_spf.mailsvc.example.net -all'],
      problems: [],
    },
    {
      purpose: 'dmarc',
      required: false,
      type: 'TXT',
      host: '_dmarc.example.com',
      name: '_dmarc',
      value: 'v=DMARC1; p=none',
      state: 'missing',
      found: [],
      problems: [
        {
          code: 'dmarc_missing',
          message:
            'No DMARC record: receivers such as Gmail and Yahoo expect one from bulk senders; publish v=DMARC1; p=none to start.',
        },
      ],
    },
  ],
  dmarc: {
    policy: null,
    alignment:
      'No DMARC policy: nothing to align with yet. DKIM (d=example.com) and SPF (bounces.example.com) both align in relaxed mode once one is published.',
  },
  verifiedAt: '2026-11-22T10:20:30.123Z',
  lastCheckedAt: '2026-11-22T10:20:30.123Z',
  nextCheckAt: '2026-11-23T10:20:30.123Z',
  createdAt: '2026-11-22T10:15:30.123Z',
};
