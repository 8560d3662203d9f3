-- DESIGN.md §3 step 7, the one home of the sending-domain rule: which domain a send of this
-- environment goes out from, its From, and whether the send is refused. Called by
-- accept_messages() for POST /v1/send, and through db/repositories/send.ts chooseSendingDomain by
-- POST /v1/contacts/send and its dry run (a bulk send's job) and by the answer to a send from a
-- paused or blocked environment (steps 3 and 7 answer before step 8).
-- The rule: the environment's custom domain, else its project's, else the tenant's (oldest first
-- within a scope), else p_default_domain (MAILSVC_DEFAULT_SENDING_DOMAIN). The From is
-- p_from_email (the explicit or configured one) or, when NULL, notifications@ the domain.
-- Refusals, in this order: 'sending_domain_not_ready' (the custom domain is pending or failed; a
-- degraded one still sends, DESIGN.md §13),
-- 'from_domain_not_allowed' (the From is not on the domain). The answers to each code are in
-- domain/send/from-rule.ts; test/send-checks.test.ts holds the table of arrangements.
-- Re-applied on every migrate; a SQL function, so the planner inlines it where it is joined.
CREATE OR REPLACE FUNCTION choose_sending_domain(
  p_tenant_id text, p_project_id text, p_environment_id text, p_from_email text,
  p_default_domain text)
RETURNS TABLE (sending_domain text, from_email text, refusal text)
LANGUAGE sql STABLE
AS $$
  SELECT chosen.domain,
         coalesce(p_from_email, 'notifications@' || chosen.domain),
         CASE
           WHEN chosen.status IS NOT NULL AND chosen.status NOT IN ('verified', 'degraded') THEN 'sending_domain_not_ready'
           WHEN substring(coalesce(p_from_email, 'notifications@' || chosen.domain) FROM '[^@]*$')
                IS DISTINCT FROM chosen.domain THEN 'from_domain_not_allowed'
         END
    FROM (SELECT coalesce(custom.domain, p_default_domain) AS domain, custom.status
            FROM (SELECT 1) one
            LEFT JOIN LATERAL (
                   SELECT d.domain, d.status
                     FROM sending_domains d
                    WHERE d.tenant_id = p_tenant_id
                      AND (d.environment_id = p_environment_id
                           OR (d.scope = 'project' AND d.project_id = p_project_id)
                           OR d.scope = 'tenant')
                    ORDER BY (d.environment_id = p_environment_id) IS TRUE DESC,
                             (d.scope = 'project' AND d.project_id = p_project_id) IS TRUE DESC,
                             d.created_at, d.domain
                    LIMIT 1) custom ON true) chosen
$$;
