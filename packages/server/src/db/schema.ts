// Row types for Kysely, one interface per table of migrations/*.sql.
import type { ColumnType, Generated, Kysely } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface PlansTable {
  id: string;
  monthly_limit: number;
  overage_allowed: boolean;
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
  created_at: Timestamp;
  updated_at: Timestamp;
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

export interface Database {
  plans: PlansTable;
  tenants: TenantsTable;
  projects: ProjectsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  sending_domains: SendingDomainsTable;
  tenant_usage: TenantUsageTable;
  environment_usage: EnvironmentUsageTable;
  audit_events: AuditEventsTable;
}

export type Db = Kysely<Database>;
