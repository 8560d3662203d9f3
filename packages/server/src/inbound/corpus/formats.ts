// The bounce corpus's message builders: one per reporting system, each laying out a failed
// recipient and its diagnostic as that system's bounce template does (the families of
// inbound/bounce-formats/, and RFC 3464 DSNs as Postfix, Sendmail, Exchange and Gmail send them).
// `original` is the header block of the message that bounced.
export interface BounceInput {
  rcpt: string;
  diagnostic: string;
  /** The Status a DSN carries. */
  status: string;
  original: string;
  /** The envelope sender of the original (a DSN names it). */
  sender: string;
}

type Body = (b: BounceInput) => { headers?: string[]; body: string };

const plain = (subject: string, build: Body) => (b: BounceInput) => {
  const { headers = [], body } = build(b);
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${b.sender}`,
    `Subject: ${subject}`,
    'Date: Fri, 27 Nov 2026 09:00:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    ...headers,
    '',
    body,
    '',
  ].join('\r\n');
};

/** RFC 3464, as Postfix and most modern systems send it. */
function dsn(b: BounceInput): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${b.sender}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Date: Fri, 27 Nov 2026 09:00:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="DSN.boundary"',
    '',
    '--DSN.boundary',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.example.net.',
    '',
    "I'm sorry to have to inform you that your message could not",
    'be delivered to one or more recipients.',
    '',
    '--DSN.boundary',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    `Final-Recipient: rfc822; ${b.rcpt}`,
    `Original-Recipient: rfc822;${b.rcpt}`,
    'Action: failed',
    `Status: ${b.status}`,
    'Remote-MTA: dns; in.example.org',
    `Diagnostic-Code: smtp; ${b.diagnostic}`,
    '',
    '--DSN.boundary',
    'Content-Type: text/rfc822-headers',
    '',
    b.original,
    '',
    '--DSN.boundary--',
  ].join('\r\n');
}

export const FORMATS: Record<string, (b: BounceInput) => string> = {
  dsn,
  exim: plain('Mail delivery failed: returning message to sender', (b) => ({
    headers: [`X-Failed-Recipients: ${b.rcpt}`],
    body: [
      'This message was created automatically by mail delivery software.',
      '',
      'A message that you sent could not be delivered to one or more of its',
      'recipients. This is a permanent error. The following address(es) failed:',
      '',
      `  ${b.rcpt}`,
      '    host in.example.org [192.0.2.25]',
      `    SMTP error from remote mail server after RCPT TO:<${b.rcpt}>:`,
      `    ${b.diagnostic}`,
      '',
      '------ This is a copy of the message, including all the headers. ------',
      '',
      b.original,
    ].join('\r\n'),
  })),
  gmx: plain('Mail delivery failed: returning message to sender', (b) => ({
    body: [
      'This message was created automatically by mail delivery software.',
      '',
      'A message that you sent could not be delivered to one or more of',
      'its recipients. This is a permanent error. The following address(es)',
      'failed:',
      '',
      `${b.rcpt}:`,
      `SMTP error from remote server for RCPT TO command, host: in.example.org (192.0.2.25) reason: ${b.diagnostic}`,
      '',
      '--- The header of the original message is following. ---',
      '',
      b.original,
    ].join('\r\n'),
  })),
  qmail: plain('failure notice', (b) => ({
    body: [
      'Hi. This is the qmail-send program at mx.example.net.',
      "I'm afraid I wasn't able to deliver your message to the following addresses.",
      "This is a permanent error; I've given up. Sorry it didn't work out.",
      '',
      `<${b.rcpt}>:`,
      '192.0.2.25 does not like recipient.',
      `Remote host said: ${b.diagnostic}`,
      'Giving up on 192.0.2.25.',
      '',
      '--- Below this line is a copy of the message.',
      '',
      b.original,
    ].join('\r\n'),
  })),
  postfix: plain('Undelivered Mail Returned to Sender', (b) => ({
    body: [
      'This is the mail system at host mx.example.net.',
      '',
      "I'm sorry to have to inform you that your message could not",
      'be delivered to one or more recipients.',
      '',
      '                   The mail system',
      '',
      `<${b.rcpt}>: host in.example.org[192.0.2.25] said: ${b.diagnostic} (in reply to RCPT TO command)`,
      '',
      '--- Undelivered message headers follow ---',
      '',
      b.original,
    ].join('\r\n'),
  })),
  exchange: plain('Undeliverable: Your login code', (b) => ({
    body: [
      'Delivery has failed to these recipients or groups:',
      '',
      `${b.rcpt} (${b.rcpt})`,
      "Your message couldn't be delivered. The remote server returned an error.",
      '',
      'Diagnostic information for administrators:',
      '',
      'Generating server: mx.example.net',
      '',
      b.rcpt,
      `Remote Server returned '${b.diagnostic}'`,
      '',
      'Original message headers:',
      '',
      b.original,
    ].join('\r\n'),
  })),
  'exchange-2003': plain('Undeliverable: Your login code', (b) => ({
    body: [
      'Your message did not reach some or all of the intended recipients.',
      '',
      '      Subject:\tYour login code',
      '      Sent:\t11/27/2026 9:00 AM',
      '',
      'The following recipient(s) could not be reached:',
      '',
      `      ${b.rcpt} on 11/27/2026 9:00 AM`,
      `            ${b.diagnostic}`,
      `            <in.example.org #${b.status}>`,
    ].join('\r\n'),
  })),
  sendmail: plain('Returned mail: see transcript for details', (b) => ({
    body: [
      'The original message was received at Fri, 27 Nov 2026 09:00:00 GMT',
      'from localhost [127.0.0.1]',
      '',
      '   ----- The following addresses had permanent fatal errors -----',
      `<${b.rcpt}>`,
      `    (reason: ${b.diagnostic})`,
      '',
      '   ----- Transcript of session follows -----',
      '... while talking to in.example.org.:',
      `>>> RCPT To:<${b.rcpt}>`,
      `<<< ${b.diagnostic}`,
      '',
      '   ----- Original message follows -----',
      '',
      b.original,
    ].join('\r\n'),
  })),
  opensmtpd: plain('Delivery status notification: error', (b) => ({
    body: [
      'Hi!',
      '',
      'This is the MAILER-DAEMON, please DO NOT REPLY to this email.',
      '',
      'An error has occurred while attempting to deliver a message for',
      'the following list of recipients:',
      '',
      `${b.rcpt}: ${b.diagnostic}`,
      '',
      'Below is a copy of the original message:',
      '',
      b.original,
    ].join('\r\n'),
  })),
  yahoo: plain('Failure Notice', (b) => ({
    body: [
      'Sorry, we were unable to deliver your message to the following address.',
      '',
      `<${b.rcpt}>:`,
      `Remote host said: ${b.diagnostic} [RCPT_TO]`,
      '',
      '--- Below this line is a copy of the message.',
      '',
      b.original,
    ].join('\r\n'),
  })),
  google: plain('Delivery Status Notification (Failure)', (b) => ({
    body: [
      'Delivery to the following recipient failed permanently:',
      '',
      `     ${b.rcpt}`,
      '',
      'Technical details of permanent failure:',
      `Google tried to deliver your message, but it was rejected by the server for the recipient domain by in.example.org. [192.0.2.25].`,
      '',
      'The error that the other server returned was:',
      b.diagnostic,
      '',
      '----- Original message -----',
      '',
      b.original,
    ].join('\r\n'),
  })),
  verizon: plain('Undeliverable Message', (b) => ({
    body: [
      'Each of the following recipients was rejected by a remote mail server.',
      'The reasons given by the server are included to help you determine why',
      'each recipient was rejected.',
      '',
      `    Recipient: <${b.rcpt}>`,
      `    >>> RCPT TO:<${b.rcpt}>`,
      `    <<< ${b.diagnostic}`,
    ].join('\r\n'),
  })),
  mcafee: plain('Delivery Status Notification', (b) => ({
    body: [
      '--- The following addresses had delivery problems ---',
      '',
      `<${b.rcpt}>   (${b.diagnostic})`,
      '',
      '--------- Original message ---------',
      '',
      b.original,
    ].join('\r\n'),
  })),
  courier: plain('NOTICE: mail delivery status.', (b) => ({
    body: [
      'This is a delivery status notification from mx.example.net,',
      'running the Courier mail server, version 1.1.',
      '',
      'The original message was received on Fri, 27 Nov 2026 09:00:00 +0000',
      '',
      '---------------------------------------------------------------------------',
      '',
      '                           UNDELIVERABLE MAIL',
      '',
      'Your message to the following recipients cannot be delivered:',
      '',
      `<${b.rcpt}>:`,
      '    in.example.org [192.0.2.25]:',
      `>>> RCPT TO:<${b.rcpt}>`,
      `<<< ${b.diagnostic}`,
    ].join('\r\n'),
  })),
};

/** Systems whose bounces carry only words, no reply: their own wording of a missing mailbox. */
export const WORDS_ONLY: Record<string, { build: (b: BounceInput) => string; hard: boolean }> = {
  domino: {
    hard: true,
    build: plain('DELIVERY FAILURE: User not listed in Domino Directory', (b) => ({
      body: [
        'Your message',
        '',
        '  Subject: Your login code',
        '',
        '  was not delivered to:',
        '',
        `  ${b.rcpt}`,
        '',
        '  because:',
        '',
        `  User ${b.rcpt.split('@')[0]} (${b.rcpt}) not listed in Domino Directory`,
      ].join('\r\n'),
    })),
  },
  'exchange-2003-words': {
    hard: true,
    build: plain('Undeliverable: Your login code', (b) => ({
      body: [
        'Your message did not reach some or all of the intended recipients.',
        '',
        'The following recipient(s) could not be reached:',
        '',
        `      ${b.rcpt} on 11/27/2026 9:00 AM`,
        '            The e-mail account does not exist at the organization this message was sent to.',
        '            <in.example.org #5.1.1>',
      ].join('\r\n'),
    })),
  },
  imail: {
    hard: true,
    build: plain('Undeliverable Mail', (b) => ({
      body: [`Unknown user: ${b.rcpt}`, '', 'Original message follows.', '', b.original].join('\r\n'),
    })),
  },
  'imail-full': {
    hard: false,
    build: plain('Undeliverable Mail', (b) => ({
      body: [
        `User mailbox exceeds allowed size: ${b.rcpt}`,
        '',
        'Original message follows.',
        '',
        b.original,
      ].join('\r\n'),
    })),
  },
  'verizon-quota': {
    hard: false,
    build: plain('Undeliverable Message', (b) => ({
      body: [
        'This Message was undeliverable due to the following reason:',
        '',
        'The user(s) account is temporarily over quota.',
        '',
        `<${b.rcpt}>`,
      ].join('\r\n'),
    })),
  },
};
