// The filters of POST /v1/contacts/list, one clause per field and operator.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ContactStatus } from './contact.js';
import { GroupSlug } from './group.js';
import { ENVIRONMENT_ID, PROJECT_ID } from './ids.js';
import { Timestamp } from './timestamp.js';

const setBranches = <F extends string, V extends TSchema>(field: F, value: V) =>
  [
    filterClause(field, 'eq', value),
    filterClause(field, 'neq', value),
    filterClause(field, 'in', Type.Array(value, { minItems: 1, maxItems: 100 })),
  ] as const;

function filterClause<F extends string, O extends string, V extends TSchema>(field: F, op: O, value: V) {
  return Type.Object(
    { field: Type.Literal(field), op: Type.Literal(op), value },
    { additionalProperties: false },
  );
}

const statusClauses = setBranches('status', ContactStatus);
const groupClauses = setBranches('group', GroupSlug);
const projectClauses = setBranches('project', Type.String({ pattern: PROJECT_ID, description: 'prj_… id' }));
const environmentClauses = setBranches(
  'environment',
  Type.String({ pattern: ENVIRONMENT_ID, description: 'env_… id' }),
);
const lastEmailedAtClause = Type.Object(
  {
    field: Type.Literal('lastEmailedAt'),
    op: Type.Unsafe<'before' | 'after'>({ type: 'string', enum: ['before', 'after'] }),
    value: Timestamp,
  },
  { additionalProperties: false },
);
const flagClauses = [
  filterClause(
    'suppressed',
    'eq',
    Type.Boolean({ description: 'in a hard-bounce cooldown or suppressed now' }),
  ),
  filterClause(
    'unsubscribed',
    'eq',
    Type.Boolean({ description: 'unsubscribed and not resubscribed since' }),
  ),
  filterClause('complained', 'eq', Type.Boolean({ description: 'complained (at any time)' })),
] as const;

const ContactFilterUnion = Type.Union([
  ...statusClauses,
  ...groupClauses,
  ...projectClauses,
  ...environmentClauses,
  lastEmailedAtClause,
  ...flagClauses,
]);
export type ContactFilter = Static<typeof ContactFilterUnion>;

/**
 * Branches told apart by one property (Ajv's `discriminator`): only the branch the tag names is
 * checked, so a wrong op or value is reported at its own path (/filters/0/op, /filters/0/value)
 * instead of once per branch.
 */
function byTag(tag: string, branches: readonly TSchema[], fixed: Record<string, TSchema> = {}): TSchema {
  const tags = branches.map(
    (b) => (b.properties as Record<string, { const?: string; enum?: string[] }>)[tag]!,
  );
  return Type.Unsafe({
    type: 'object',
    properties: { ...fixed, [tag]: { type: 'string', enum: tags.flatMap((t) => t.enum ?? [t.const!]) } },
    required: [...Object.keys(fixed), tag],
    discriminator: { propertyName: tag },
    oneOf: branches,
  });
}

/** One clause of POST /v1/contacts/list's filters: by field, then (eq, neq, in) by op. */
export const ContactFilter = Type.Unsafe<ContactFilter>({
  ...byTag('field', [
    byTag('op', statusClauses, { field: Type.Literal('status') }),
    byTag('op', groupClauses, { field: Type.Literal('group') }),
    byTag('op', projectClauses, { field: Type.Literal('project') }),
    byTag('op', environmentClauses, { field: Type.Literal('environment') }),
    lastEmailedAtClause,
    ...flagClauses,
  ]),
  description:
    "{field, op, value}: status, group, project, environment (eq, neq, in), lastEmailedAt (before, after), suppressed, unsubscribed, complained (eq, boolean); status and the flags are for the key's environment",
});
