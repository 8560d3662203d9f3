// The DKIM signer against an independent verifier (mailauth): signatures verify, cover every
// header a receiver shows, and break when a header is added in transit (over-signing, RFC 6376
// §8.15) or the body changes.
import { createRequire } from 'node:module';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import {
  DKIM_SELECTOR_MAX_LENGTH,
  dkimSelectorFor,
  dkimTxtValue,
  generateDkimKeyPair,
  parseDkimKey,
  SIGNED_HEADERS,
  signMessage,
  signMessageAsync,
} from './dkim.js';
import { buildMime, type MimeInput } from './mime.js';

const require = createRequire(import.meta.url);
const { dkimVerify } = require('mailauth/lib/dkim/verify') as {
  dkimVerify(
    raw: Buffer,
    opts: { resolver: (name: string, type: string) => Promise<string[][]> },
  ): Promise<{
    results: { status: { result: string; comment?: string }; signingHeaders: { keys: string } }[];
  }>;
};

const DOMAIN = 'mail.acme-dkim.test';
const pair = generateDkimKeyPair(new Date('2026-11-23T00:00:00Z'));
const key = parseDkimKey(DOMAIN, pair.selector, pair.privateKeyPem);
const resolver = async (name: string, type: string) => {
  if (type === 'TXT' && name === `${pair.selector}._domainkey.${DOMAIN}`)
    return [[dkimTxtValue(pair.publicKeyPem)]];
  throw Object.assign(new Error(`no ${type} ${name}`), { code: 'ENOTFOUND' });
};

const base: MimeInput = {
  messageId: 'msg_01JDKIMTEST0000000000000000',
  messageIdHeader: `<msg_01JDKIMTEST0000000000000000@${DOMAIN}>`,
  from: { name: 'Acme Security', address: `notifications@${DOMAIN}` },
  to: 'ada@example.com',
  replyTo: null,
  subject: 'Your login code — Ünïcode and a long subject that the composer folds over more than one line',
  html: '<p>Your code is <b>482913</b>.</p>\n<p>Trailing spaces   \t</p>\n\n\n',
  text: 'Your code is 482913.\n\n.starts with a dot\nTrailing spaces   \n\n\n',
  date: new Date('2026-11-23T10:00:00Z'),
  unsubscribeUrl: 'https://mail.example.test/u/abc',
};

async function verdict(raw: Buffer): Promise<string> {
  const { results } = await dkimVerify(raw, { resolver });
  expect(results).toHaveLength(1);
  return results[0]!.status.result;
}

/** Adds a header field at the top of the message, above the signature, as a relay would. */
const prepend = (raw: Buffer, field: string) => Buffer.concat([Buffer.from(`${field}\r\n`), raw]);

describe('DKIM signatures', () => {
  it('verify for any body: whitespace runs, tabs, blanks at line ends, bare LFs, empty lines at the end, no final line end', async () => {
    const bodies = [
      'a  b\t\tc \r\n\t indented\r\n\r\n\r\n',
      'one\nbare LF \n\n',
      'no final line end  ',
      'plain\r\nlines\r\n',
      '',
      ' \r\n\t\r\n',
    ];
    for (const body of bodies) {
      const raw = Buffer.from(
        `From: a@${DOMAIN}\r\nTo: b@example.com\r\nSubject:  spaced \t subject \r\n\r\n${body}`,
        'latin1',
      );
      expect(await verdict(signMessage(raw, key)), JSON.stringify(body)).toBe('pass');
      expect(await verdict(await signMessageAsync(raw, key)), JSON.stringify(body)).toBe('pass');
    }
  });

  it('verify in mailauth, with the relaxed body hash over the final bytes', async () => {
    const raw = signMessage(await buildMime(base), key);
    expect(await verdict(raw)).toBe('pass');
    const noUnsubscribe = signMessage(
      await buildMime({ ...base, unsubscribeUrl: null, replyTo: 'help@acme.test' }),
      key,
    );
    expect(await verdict(noUnsubscribe)).toBe('pass');
  });

  it('list every signed header once more than the message has it, an absent one once', async () => {
    const raw = signMessage(await buildMime({ ...base, replyTo: 'help@acme.test' }), key);
    expect(await verdict(raw)).toBe('pass');
    const text = raw.toString('latin1');
    const signature = text.slice(0, text.indexOf('\r\nX-Mailsvc-Message-ID')).replace(/\r\n[ \t]/g, ' ');
    const listed = /\bh=([^;]+);/
      .exec(signature)![1]!
      .split(':')
      .map((n) => n.trim().toLowerCase());
    const count = (name: string) => listed.filter((n) => n === name.toLowerCase()).length;
    for (const name of [
      'From',
      'To',
      'Subject',
      'Date',
      'Message-ID',
      'Reply-To',
      'MIME-Version',
      'Content-Type',
      'List-Unsubscribe',
      'List-Unsubscribe-Post',
    ]) {
      expect(count(name), name).toBe(2);
    }
    expect(count('Cc')).toBe(1);
    expect(count('Sender')).toBe(1);
    expect(SIGNED_HEADERS.every((n) => count(n) >= 1)).toBe(true);
  });

  it.each([
    ['a Reply-To the message did not have', 'Reply-To: attacker@evil.test'],
    ['a second Subject', 'Subject: Urgent: verify your payment details'],
    ['a second From', 'From: "Acme" <security@evil.test>'],
    ['a Cc', 'Cc: someone@evil.test'],
    ['a second List-Unsubscribe', 'List-Unsubscribe: <https://evil.test/u>'],
    ['a second Date', 'Date: Tue, 24 Nov 2026 10:00:00 +0000'],
  ])('break when a relay adds %s', async (_what, field) => {
    const raw = signMessage(await buildMime(base), key);
    expect(await verdict(raw)).toBe('pass');
    expect(await verdict(prepend(raw, field))).not.toBe('pass');
  });

  it('break when a second Reply-To is added to a message that has one', async () => {
    const raw = signMessage(await buildMime({ ...base, replyTo: 'help@acme.test' }), key);
    expect(await verdict(prepend(raw, 'Reply-To: attacker@evil.test'))).not.toBe('pass');
  });

  it('break when the body changes, and survive a header nobody signs (Received)', async () => {
    const raw = signMessage(await buildMime(base), key);
    const tampered = Buffer.from(raw.toString('latin1').replace('482913', '000000'), 'latin1');
    expect(await verdict(tampered)).not.toBe('pass');
    expect(
      await verdict(
        prepend(raw, 'Received: from relay.example.net by mx.example.com; Mon, 23 Nov 2026 10:00:01 +0000'),
      ),
    ).toBe('pass');
  });

  it('keep every header line within 78 columns', async () => {
    const raw = signMessage(await buildMime(base), key).toString('latin1');
    const header = raw.slice(0, raw.indexOf('\r\n\r\n'));
    for (const line of header.split('\r\n')) expect(line.length, line).toBeLessThanOrEqual(78);
  });
});

describe('DKIM selectors', () => {
  it('are dated, and never longer than DKIM_SELECTOR_MAX_LENGTH (the sending domain’s length limit counts on it)', () => {
    const at = new Date('2026-11-29T13:05:00Z');
    const taken = ['mailsvc-202611', 'mailsvc-20261129', 'mailsvc-202611291305'];
    expect(dkimSelectorFor(at)).toBe('mailsvc-202611');
    expect(dkimSelectorFor(at, taken)).toMatch(/^mailsvc-202611-[0-9a-z]+$/);
    for (const year of ['2026', '2099', '5000']) {
      const late = new Date(`${year}-12-31T23:59:59.999Z`);
      const iso = late.toISOString();
      const month = `mailsvc-${iso.slice(0, 4)}${iso.slice(5, 7)}`;
      const all = [month, `${month}31`, `${month}312359`];
      expect(dkimSelectorFor(late, all).length, year).toBeLessThanOrEqual(DKIM_SELECTOR_MAX_LENGTH);
    }
  });
});

describe('MIME headers', () => {
  it('a display name holding an encoded word shows as written, not as what it hides', async () => {
    const hidden = '=?UTF-8?B?c2VjdXJpdHlAcGF5cGFsLmNvbQ==?='; // "security@paypal.com"
    const parsed = await simpleParser(
      buildMime({ ...base, from: { name: hidden, address: base.from.address } }),
    );
    expect(parsed.from?.value[0]).toMatchObject({ name: hidden, address: base.from.address });
  });

  it('names with quotes, specials and non-ASCII survive: quoted or encoded, never raw', async () => {
    for (const name of ['Acme "Security" Team', 'Müller & Söhne', 'A, B <c@d>', 'Plain Name']) {
      const parsed = await simpleParser(buildMime({ ...base, from: { name, address: base.from.address } }));
      expect(parsed.from?.value[0]).toMatchObject({ name, address: base.from.address });
      expect(parsed.from?.value).toHaveLength(1);
    }
  });
});
