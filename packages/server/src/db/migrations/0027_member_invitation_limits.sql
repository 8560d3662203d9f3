-- Invitations are limited (domain/console/members.ts): each mails an address from the system
-- environment, outside the tenant's quota, so a member who invites and removes in a loop could mail
-- any address without end. The limits count members rows, removed ones included, by address
-- across tenants and by tenant, over the last day and hour.
CREATE INDEX members_email_created_idx ON members (email, created_at);
CREATE INDEX members_tenant_created_idx ON members (tenant_id, created_at);
