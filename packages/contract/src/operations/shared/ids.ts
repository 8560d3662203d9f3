// The ids of the API's resources, as schemas and as patterns.
import { Type } from '@sinclair/typebox';

export const ContactId = Type.String({ pattern: '^ct_[0-9A-HJKMNP-TV-Z]{26}$', description: 'ct_… id' });
export const BulkJobId = Type.String({ pattern: '^job_[0-9A-HJKMNP-TV-Z]{26}$', description: 'job_… id' });

export const ENVIRONMENT_ID = '^env_[0-9A-HJKMNP-TV-Z]{26}$';
export const PROJECT_ID = '^prj_[0-9A-HJKMNP-TV-Z]{26}$';
export const WebhookEndpointId = Type.String({
  pattern: '^whe_[0-9A-HJKMNP-TV-Z]{26}$',
  description: 'whe_… id of a webhook endpoint',
});
export const EventId = Type.String({
  pattern: '^evt_[0-9A-HJKMNP-TV-Z]{26}$',
  description: 'evt_… id of an event (the webhook-id)',
});
