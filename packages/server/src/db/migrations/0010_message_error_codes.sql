-- One closed list of message error codes (packages/contract/src/message-errors.ts): a failure a
-- DSN, relay event or SES reported was `bounced` (hard) or `failed`, and a bulk message whose job
-- was canceled in flight `job_data_missing`; they are now the codes the worker's own attempt
-- gives for the same finding.
UPDATE messages
   SET last_error = jsonb_set(
         last_error, '{code}',
         to_jsonb(CASE last_error->>'code'
                    WHEN 'bounced' THEN 'hard_bounce'
                    WHEN 'failed' THEN 'rejected'
                    ELSE 'bulk_send_canceled' END))
 WHERE last_error->>'code' IN ('bounced', 'failed', 'job_data_missing');
