// Compile-time checks of the client's types, run by `npm run typecheck` (tsc): the line after
// each expect-error directive must fail to compile, or tsc fails ("unused directive"). Never run.
import {
  isMailsvcError,
  type Mailsvc,
  MailsvcError,
  type MailsvcWrapper,
  type OperationErrorCode,
} from '../src/index.js';

declare const client: Mailsvc;
declare const wrapper: MailsvcWrapper;

export async function checks(): Promise<void> {
  // The send body is the contract's.
  await client.emails.send({ templateId: 'login-code', to: 'a@example.com', data: { code: '1' } });
  // @ts-expect-error templateId is required
  await client.emails.send({ to: 'a@example.com', data: {} });
  // @ts-expect-error no such field in the send body
  await client.emails.send({ templateId: 'login-code', to: 'a@example.com', data: {}, cc: 'b@example.com' });
  const sent = await client.emails.send({ templateId: 'welcome', to: 'a@example.com', data: {} });
  // The core's data is typed by template: login-code needs code …
  // @ts-expect-error code is required for login-code
  await client.emails.send({ templateId: 'login-code', to: 'a@example.com', data: {} });
  // @ts-expect-error not a template of the catalogue
  await client.emails.send({ templateId: 'no-such-template', to: 'a@example.com', data: {} });
  // … and by version: welcome's latest (v2, the core's default) has notice, v1 has not.
  await client.emails.send({ templateId: 'welcome', to: 'a@example.com', data: { notice: 'Hi' } });
  await client.emails.send({
    templateId: 'welcome',
    templateVersion: 'v2',
    to: 'a@example.com',
    data: { notice: 'Hi' },
  });
  await client.emails.send({
    templateId: 'welcome',
    templateVersion: 'v1',
    to: 'a@example.com',
    // @ts-expect-error welcome v1 has no notice
    data: { notice: 'Hi' },
  });
  // @ts-expect-error login-code has no version v2
  await client.emails.send({
    templateId: 'login-code',
    templateVersion: 'v2',
    to: 'a@example.com',
    data: { code: '1' },
  });
  // The wrapper's default is v1: notice needs templateVersion v2 there.
  // @ts-expect-error welcome v1 (the wrapper's default) has no notice
  await wrapper.account.welcome({ to: 'a@example.com', data: { notice: 'Hi' } });
  await wrapper.account.welcome({ to: 'a@example.com', templateVersion: 'v2', data: { notice: 'Hi' } });
  const status: 'accepted' = sent.status;
  const quota = await client.quota.get();
  const used: number = quota.quota.monthly.used;

  // Wrapper data is typed per template: login-code needs code.
  await wrapper.auth.loginCode({ to: 'a@example.com', data: { code: '482913' } });
  // @ts-expect-error code is required for login-code
  await wrapper.auth.loginCode({ to: 'a@example.com', data: {} });
  // @ts-expect-error login-code has no field url
  await wrapper.auth.loginCode({ to: 'a@example.com', data: { code: '1', url: 'https://example.com' } });
  // @ts-expect-error the envelope is strict
  await wrapper.auth.loginCode({ to: 'a@example.com', data: { code: '1' }, templateId: 'login-code' });
  // @ts-expect-error no such route
  await wrapper.auth.loginCodes({ to: 'a@example.com', data: { code: '1' } });
  // … and payment-failed the amount inside its table and the button's URL.
  await wrapper.billing.paymentFailed({
    to: 'a@example.com',
    data: { invoiceDetails: { amount: '€49.00' }, actionButton: { url: 'https://app.example.com/billing' } },
  });
  await wrapper.billing.paymentFailed({
    to: 'a@example.com',
    // @ts-expect-error invoiceDetails.amount is required for payment-failed
    data: { invoiceDetails: {}, actionButton: { url: 'https://app.example.com/billing' } },
  });

  // Errors narrow by code.
  const err: unknown = undefined;
  if (isMailsvcError(err, 'rate_limited')) {
    const code: 'rate_limited' = err.code;
    const wait: number | undefined = err.retryAfter;
    void code;
    void wait;
  }
  if (isMailsvcError(err)) {
    // @ts-expect-error not a code of the catalogue
    err.is('no_such_code');
    if (err.is('invalid_template_data')) {
      const code: 'invalid_template_data' = err.code;
      const path: string | undefined = err.details[0]?.path;
      void [code, path];
    }
  }
  if (err instanceof MailsvcError) {
    // @ts-expect-error not a code of the catalogue, even after instanceof
    err.is('typo_code');
    const key: string | undefined = err.idempotencyKey;
    void key;
  }
  const sendCodes: OperationErrorCode<'sendEmail'> = 'recipient_unsubscribed';
  // @ts-expect-error quota never answers recipient_unsubscribed
  const quotaCodes: OperationErrorCode<'getQuota'> = 'recipient_unsubscribed';
  const typed: MailsvcError<OperationErrorCode<'sendEmail'>> | undefined = undefined;
  void [status, used, sendCodes, quotaCodes, typed];
}
