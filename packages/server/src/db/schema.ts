// Row types for Kysely, one interface per table of migrations/*.sql.
import type { ColumnType, Generated, Kysely } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface PlansTable {
  id: string;
  monthly_limit: number;
  overage_allowed: boolean;
  rate_limit_per_second: Generated<number>;
  rate_limit_burst: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type AccessStatus = 'active' | 'trialing' | 'suspended';
export type ActiveStatus = 'active' | 'inactive';
export type SendingStatus = 'active' | 'paused' | 'blocked';
export type DomainStatus = 'pending' | 'verified' | 'failed';
export type DomainScope = 'tenant' | 'project' | 'environment';

export interface TenantsTable {
  id: string;
  name: string;
  plan_id: string;
  access_status: Generated<AccessStatus>;
  trial_ends_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface SenderSettings {
  from_email: Nullable<string>;
  from_name: Nullable<string>;
  reply_to: Nullable<string>;
}

export interface ProjectsTable extends SenderSettings {
  id: string;
  tenant_id: string;
  name: string;
  display_name: Nullable<string>;
  support_email: Nullable<string>;
  brand_color: Nullable<string>;
  logo_url: Nullable<string>;
  postal_address: Nullable<string>;
  status: Generated<ActiveStatus>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface EnvironmentsTable extends SenderSettings {
  id: string;
  tenant_id: string;
  project_id: string;
  name: string;
  status: Generated<ActiveStatus>;
  sending_status: Generated<SendingStatus>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  environment_id: string;
  secret_sha256: Buffer;
  hint: string;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface SendingDomainsTable {
  id: string;
  domain: string;
  tenant_id: string;
  project_id: Nullable<string>;
  environment_id: Nullable<string>;
  scope: DomainScope;
  status: Generated<DomainStatus>;
  dkim_selector: Nullable<string>;
  dkim_private_key: Nullable<string>;
  dkim_public_key: Nullable<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
  return_path_status: ColumnType<
    'pending' | 'verified',
    'pending' | 'verified' | undefined,
    'pending' | 'verified'
  >;
}

export interface TenantUsageTable {
  tenant_id: string;
  period: string;
  sent: Generated<number>;
}

export interface EnvironmentUsageTable {
  environment_id: string;
  tenant_id: string;
  period: string;
  sent: Generated<number>;
}

export interface AuditEventsTable {
  id: string;
  tenant_id: Nullable<string>;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Timestamp;
}

export type TemplateCategory = 'security' | 'transactional' | 'notification';
export type MessageStatus =
  | 'queued'
  | 'sending'
  | 'deferred'
  | 'sent'
  | 'delivered'
  | 'bounced'
  | 'failed'
  | 'suppressed'
  | 'expired'
  | 'complained'
  | 'canceled';

export interface RecipientsTable {
  environment_id: string;
  tenant_id: string;
  email: string;
  unsubscribed_at: NullableTimestamp;
  resubscribed_at: NullableTimestamp;
  complained_at: NullableTimestamp;
  complaint_count: Generated<number>;
  hard_bounce_count: Generated<number>;
  last_hard_bounce_at: NullableTimestamp;
  bounce_streak: Generated<number>;
  cooldown_until: NullableTimestamp;
  suppressed_until: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MessagesTable {
  id: string;
  tenant_id: string;
  project_id: string;
  environment_id: string;
  api_key_id: Nullable<string>;
  template_id: string;
  template_version: string;
  category: TemplateCategory;
  priority: number;
  to_email: string;
  from_email: string;
  from_name: Nullable<string>;
  reply_to: Nullable<string>;
  sending_domain: string;
  data: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  status: Generated<MessageStatus>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  locked_until: NullableTimestamp;
  expires_at: Timestamp;
  last_error: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  bulk_job_id: Nullable<string>;
  contact_id: Nullable<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
  sent_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
  claim_token: Nullable<string>;
}

export interface ServiceSecretsTable {
  name: string;
  value: Buffer;
  created_at: Timestamp;
}

export interface MessageEventsTable {
  id: string;
  message_id: string;
  tenant_id: string;
  type: string;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  environment_id: string;
  key: string;
  request_sha256: Buffer;
  /** The message of a POST /v1/send, or NULL when the key holds a bulk job. */
  message_id: Nullable<string>;
  bulk_job_id: Nullable<string>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface FeedbackReportsTable {
  id: string;
  message_id: string;
  tenant_id: string;
  source: 'inbound' | 'intake' | 'ses';
  report_type: string;
  raw_gzip: Buffer;
  created_at: Timestamp;
}

export interface EventIntakeSecretsTable {
  id: string;
  environment_id: string;
  tenant_id: string;
  secret: string;
  created_at: Timestamp;
  expires_at: NullableTimestamp;
}

export interface EventIntakeSeenTable {
  environment_id: string;
  event_id: string;
  expires_at: Timestamp;
}

export interface SesTopicsTable {
  topic_arn: string;
  environment_id: string;
  tenant_id: string;
  created_at: Timestamp;
}

export type CustomFieldValue = string | number | boolean;
type Json<T> = ColumnType<T, string | undefined, string>;

export interface ContactsTable {
  id: string;
  tenant_id: string;
  email: string;
  name: Nullable<string>;
  custom_fields: Json<Record<string, CustomFieldValue>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ContactGroupsTable {
  tenant_id: string;
  slug: string;
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ContactGroupMembersTable {
  tenant_id: string;
  group_slug: string;
  contact_id: string;
  created_at: Timestamp;
}

export type BulkJobStatus = 'running' | 'paused_bounce_rate' | 'canceled';

export interface BulkJobsTable {
  id: string;
  tenant_id: string;
  project_id: string;
  environment_id: string;
  api_key_id: Nullable<string>;
  template_id: string;
  template_version: string;
  category: TemplateCategory;
  template_data: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  target: Json<{ groupSlug?: string; contactCount: number }>;
  status: Generated<BulkJobStatus>;
  queued: number;
  skipped: Json<Record<string, number>>;
  guard_attempts: Generated<number>;
  guard_hard_bounces: Generated<number>;
  paused_at: NullableTimestamp;
  canceled_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface Database {
  contacts: ContactsTable;
  contact_groups: ContactGroupsTable;
  contact_group_members: ContactGroupMembersTable;
  bulk_jobs: BulkJobsTable;
  feedback_reports: FeedbackReportsTable;
  event_intake_secrets: EventIntakeSecretsTable;
  event_intake_seen: EventIntakeSeenTable;
  ses_topics: SesTopicsTable;
  recipients: RecipientsTable;
  messages: MessagesTable;
  message_events: MessageEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  plans: PlansTable;
  tenants: TenantsTable;
  projects: ProjectsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  sending_domains: SendingDomainsTable;
  tenant_usage: TenantUsageTable;
  environment_usage: EnvironmentUsageTable;
  audit_events: AuditEventsTable;
  service_secrets: ServiceSecretsTable;
}

export type Db = Kysely<Database>;
