-- The eligibility rule of a recipient (DESIGN.md §5), the SQL side of recipientRefusal() in
-- domain/recipients/eligibility.ts: why a send of a template of this category may not go now, or NULL.
-- Bulk sends (POST /v1/contacts/send, dry-run) apply it set-wise; test/eligibility-parity.test.ts
-- runs both sides over every recipient state and category. Re-applied on every migrate.
-- A SQL function, so the planner inlines it into the bulk send's INSERT … SELECT.
CREATE OR REPLACE FUNCTION recipient_refusal(
  p_complained_at timestamptz, p_unsubscribed_at timestamptz, p_resubscribed_at timestamptz,
  p_cooldown_until timestamptz, p_suppressed_until timestamptz, p_category text,
  p_now timestamptz)
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT CASE
    WHEN p_complained_at IS NOT NULL THEN 'recipient_complained'
    WHEN p_category = 'notification' AND p_unsubscribed_at IS NOT NULL
         AND (p_resubscribed_at IS NULL OR p_resubscribed_at < p_unsubscribed_at)
      THEN 'recipient_unsubscribed'
    WHEN p_cooldown_until > p_now OR p_suppressed_until > p_now THEN 'recipient_suppressed'
  END
$$;

-- The reported state by precedence (recipientStateName() in domain/recipients/eligibility.ts), with
-- 'clear' as contacts report it: 'active'. Used by POST /v1/contacts/list's status filter.
CREATE OR REPLACE FUNCTION contact_status(
  p_complained_at timestamptz, p_unsubscribed_at timestamptz, p_resubscribed_at timestamptz,
  p_cooldown_until timestamptz, p_suppressed_until timestamptz, p_now timestamptz)
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT CASE
    WHEN p_complained_at IS NOT NULL THEN 'complained'
    WHEN p_suppressed_until > p_now THEN 'suppressed'
    WHEN p_cooldown_until > p_now THEN 'cooldown'
    WHEN p_unsubscribed_at IS NOT NULL
         AND (p_resubscribed_at IS NULL OR p_resubscribed_at < p_unsubscribed_at) THEN 'unsubscribed'
    ELSE 'active'
  END
$$;
