-- Invitations are limited (domain/console/members.ts): each mails an address from the system
-- environment, outside the tenant's quota, so a member who invites and removes in a loop could mail
-- any address without end. The limits count members rows, removed ones included, by mailbox (the
-- address without a +tag: jane+1@ and jane+2@ reach one inbox) across tenants, and by tenant, over
-- the last day and hour. The mailbox expression is the one invitationMailbox() in
-- db/repositories/console-people.ts writes.
CREATE INDEX members_mailbox_created_idx ON members ((regexp_replace(email, '\+[^@]*@', '@')), created_at);
CREATE INDEX members_tenant_created_idx ON members (tenant_id, created_at);
