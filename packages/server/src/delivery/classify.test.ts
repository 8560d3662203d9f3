import { describe, expect, it } from 'vitest';
import { classifySmtpError } from './classify.js';

const reply = (responseCode: number, response: string, command = 'RCPT TO') => ({
  code: 'EENVELOPE',
  command,
  responseCode,
  response,
});

describe('classifySmtpError', () => {
  it.each([
    [
      '550 5.1.1 user unknown bounces the recipient',
      reply(550, '550 5.1.1 <x@y>: user unknown'),
      'hard_fail',
      true,
    ],
    [
      '550 5.2.1 mailbox disabled bounces the recipient',
      reply(550, '550 5.2.1 mailbox disabled'),
      'hard_fail',
      true,
    ],
    [
      '550 5.7.1 policy block fails without bouncing',
      reply(550, '550 5.7.1 rejected by policy'),
      'hard_fail',
      false,
    ],
    [
      '552 5.2.2 mailbox full fails without bouncing',
      reply(552, '552 5.2.2 mailbox full'),
      'hard_fail',
      false,
    ],
    ['a bare 550 at RCPT bounces the recipient', reply(550, '550 No such user here'), 'hard_fail', true],
    [
      '550 5.1.1 naming a blocklist (Spamhaus) at RCPT fails without bouncing, as in a DSN',
      reply(550, '550 5.1.1 Service unavailable; client host [203.0.113.9] blocked using zen.spamhaus.org'),
      'hard_fail',
      false,
    ],
    ['a bare 554 fails without bouncing', reply(554, '554 Transaction failed'), 'hard_fail', false],
    [
      'a refused MAIL FROM (5.1.8, bounce domain not published) fails without bouncing',
      reply(553, '553 5.1.8 Sender address rejected: Domain not found', 'MAIL FROM'),
      'hard_fail',
      false,
    ],
    [
      'a bare 550 after DATA fails without bouncing',
      reply(550, '550 looks like spam', 'DATA'),
      'hard_fail',
      false,
    ],
    [
      'a number in the text is not an enhanced code',
      reply(554, '554 Your IP 203.5.1.2 is listed'),
      'hard_fail',
      false,
    ],
    ['451 4.7.1 greylisting is soft', reply(451, '451 4.7.1 try again later'), 'soft_fail', undefined],
    [
      'a 451 after DATA (nodemailer EMESSAGE with a reply code) is soft',
      { code: 'EMESSAGE', command: 'DATA', responseCode: 451, response: '451 4.3.0 queue full' },
      'soft_fail',
      undefined,
    ],
    [
      'a 452 after DATA for one recipient is soft',
      { code: 'EMESSAGE', command: 'DATA', responseCode: 452, response: '452 4.2.2 over quota' },
      'soft_fail',
      undefined,
    ],
    [
      'a 554 after DATA (EMESSAGE) fails without bouncing',
      { code: 'EMESSAGE', command: 'DATA', responseCode: 554, response: '554 5.6.0 bad content' },
      'hard_fail',
      false,
    ],
    ['421 service unavailable is soft', reply(421, '421 closing'), 'soft_fail', undefined],
  ])('%s', (_name, err, kind, isRecipientBounce) => {
    const outcome = classifySmtpError(err);
    expect(outcome.kind).toBe(kind);
    if (outcome.kind === 'hard_fail') expect(outcome.isRecipientBounce).toBe(isRecipientBounce);
  });

  it('treats a dropped connection, a timeout and a failed AUTH as temporary', () => {
    expect(classifySmtpError({ code: 'ECONNECTION', message: 'Connection closed unexpectedly' }).kind).toBe(
      'soft_fail',
    );
    expect(classifySmtpError({ code: 'ETIMEDOUT', message: 'Timeout' }).kind).toBe('soft_fail');
    expect(
      classifySmtpError({ code: 'EAUTH', responseCode: 535, response: '535 5.7.8 bad creds' }).kind,
    ).toBe('soft_fail');
  });

  it('fails a message over the relay size limit at once', () => {
    expect(
      classifySmtpError({
        code: 'EMESSAGE',
        command: 'MAIL FROM',
        message: 'Message size larger than allowed 1000',
      }),
    ).toMatchObject({ kind: 'hard_fail', isRecipientBounce: false });
  });

  it('keeps the reply code and the enhanced code', () => {
    expect(classifySmtpError(reply(550, '550 5.1.1 user unknown'))).toMatchObject({
      smtpCode: 550,
      enhancedCode: '5.1.1',
    });
  });
});
