// The error codes several operations answer alike; each operation's file adds its own.
import type { CoreErrorCode } from '../../errors.js';

/** What every API-key route can answer before its own checks. */
export const API_KEY_ERRORS = [
  'invalid_request', // a malformed request (Host header, …)
  'missing_api_key',
  'invalid_api_key',
  'api_key_revoked',
  'insufficient_scope',
  'insufficient_role',
  'tenant_not_found',
  'project_not_found',
  'environment_not_found',
  'rate_limited',
  'service_unavailable',
  'internal',
] as const satisfies readonly CoreErrorCode[];

/** What every route answers when the key's tenant trial, project or environment refuses access. */
export const ACCESS_ERRORS = ['trial_expired', 'project_inactive', 'environment_inactive'] as const;

/** What every POST with a JSON body can answer about the body as such. */
export const JSON_BODY_ERRORS = ['invalid_request', 'payload_too_large', 'unsupported_media_type'] as const;

/** What the contact operations answer; get adds contact_not_found (an upsert never does). */
export const CONTACT_ERRORS = [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS] as const;

/**
 * What every contact group operation can answer. The seed gives every contacts endpoint 404
 * contact_not_found, so all five declare it; only add and remove name contacts.
 */
export const GROUP_ERRORS = [
  ...API_KEY_ERRORS,
  ...JSON_BODY_ERRORS,
  ...ACCESS_ERRORS,
  'contact_not_found',
] as const;

/** What a bulk send and its dry run can answer (DESIGN.md §3's checks that apply, and §7). */
export const BULK_SEND_ERRORS = [
  ...API_KEY_ERRORS,
  ...JSON_BODY_ERRORS,
  ...ACCESS_ERRORS,
  'template_not_found',
  'template_version_not_found',
  'invalid_template_data',
  'sending_domain_not_ready',
  'from_domain_not_allowed',
  'app_paused',
  'app_blocked',
  'group_not_found',
  'contact_not_found',
] as const;
