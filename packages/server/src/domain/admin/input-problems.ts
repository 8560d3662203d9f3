// Schema errors of admin input in words. Ajv reports a pattern as its regex and a union as one
// error per branch plus one for the union; an operator needs one sentence per field.
import type { ErrorObject } from 'ajv';
import { type FieldProblem, toFieldProblems } from '../../validation.js';
import { inputRuleMessages } from './schemas.js';

type AjvError = Pick<ErrorObject, 'instancePath' | 'schemaPath' | 'keyword' | 'params' | 'message'>;

function describe(e: AjvError): string {
  const rule =
    e.keyword === 'pattern'
      ? inputRuleMessages.get(`pattern:${e.params.pattern}`)
      : e.keyword === 'format'
        ? inputRuleMessages.get(`format:${e.params.format}`)
        : undefined;
  return rule ?? e.message ?? 'is invalid';
}

const within = (union: AjvError) => (e: AjvError) =>
  e !== union && e.schemaPath.startsWith(`${union.schemaPath}/`);

/** One sentence for a failed union: what each branch asks for, a literal '' as "to clear it". */
function describeUnion(union: AjvError, errors: readonly AjvError[]): string {
  const branches = errors.filter(within(union));
  const nested = branches.filter((e) => e.keyword === 'anyOf');
  const own = branches.filter((e) => !nested.some((n) => within(n)(e)));
  const literals = own.filter((e) => e.keyword === 'const').map((e) => e.params.allowedValue);
  const rules = [
    ...new Set(
      own
        .filter((e) => e.keyword !== 'const')
        .map((e) => (e.keyword === 'anyOf' ? describeUnion(e, errors) : describe(e))),
    ),
  ];
  if (rules.length === 0) {
    return literals.length > 0
      ? `must be one of ${literals.map((v) => (v === '' ? "''" : String(v))).join(', ')}`
      : describe(union);
  }
  const named = literals.filter((v) => v !== '').map(String);
  if (named.length > 0) rules.push(`one of ${named.join(', ')}`);
  if (literals.includes('')) rules.push("'' to clear it");
  return rules.join(', or ');
}

/** Ajv errors of an admin command's input as `{path, message}`, one per field and rule. */
export function toAdminFieldProblems(errors: readonly AjvError[] | null | undefined): FieldProblem[] {
  const all = errors ?? [];
  const unions = all.filter((e) => e.keyword === 'anyOf');
  const worded = all
    .filter((e) => !unions.some((u) => within(u)(e)))
    .map((e) => ({ ...e, message: e.keyword === 'anyOf' ? describeUnion(e, all) : describe(e) }));
  return toFieldProblems(worded);
}
