// POST /v1/templates/list: the catalogue's templates (extension, the console's Templates page):
// id, group, category, description, published versions and the example data of the latest one,
// which a send of that template takes as it is.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const ListTemplatesRequest = Type.Object(
  {
    category: Type.Optional(
      Type.Union([Type.Literal('security'), Type.Literal('transactional'), Type.Literal('notification')], {
        description: 'only templates of this category',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListTemplatesRequest = Static<typeof ListTemplatesRequest>;

export const TemplateInfo = Type.Object(
  {
    templateId: Type.String(),
    group: Type.String({ description: 'auth, account, billing, team or notifications' }),
    category: Type.Union([
      Type.Literal('security'),
      Type.Literal('transactional'),
      Type.Literal('notification'),
    ]),
    description: Type.String(),
    versions: Type.Array(Type.String(), { description: 'the published versions, oldest first' }),
    latestVersion: Type.String({ description: 'what a send without templateVersion uses' }),
    exampleData: Type.Record(Type.String(), Type.Unknown(), {
      description: 'data the latest version takes (the catalogue’s example)',
    }),
  },
  { additionalProperties: false },
);
export type TemplateInfo = Static<typeof TemplateInfo>;

export const ListTemplatesResponse = Type.Object(
  { ok: Type.Literal(true), templates: Type.Array(TemplateInfo, { description: 'by group, then id' }) },
  { additionalProperties: false },
);
export type ListTemplatesResponse = Static<typeof ListTemplatesResponse>;

export const listTemplates = {
  method: 'POST',
  path: '/v1/templates/list',
  sdk: 'templates.list',
  summary: 'The catalogue’s templates with their versions and example data (extension)',
  body: ListTemplatesRequest,
  response: ListTemplatesResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: {
    body: { category: 'security' },
    response: {
      ok: true,
      templates: [
        {
          templateId: 'login-code',
          group: 'auth',
          category: 'security',
          description: 'Sent when a user requests a one-time login code',
          versions: ['v1'],
          latestVersion: 'v1',
          exampleData: { code: '482913' },
        },
      ],
    },
  },
} as const satisfies Operation;
