// DKIM (RFC 6376): rsa-sha256, relaxed/relaxed, signed over the message's final bytes in one pass
// (no streams). Written here rather than with nodemailer's signer because that one cannot
// over-sign: it lists only the header fields a message has, so a Reply-To, Cc or second Subject
// added in transit still verifies. The private key is parsed once per domain: signing with a PEM
// string re-imports the key every time (2.4 ms against 0.6 ms with a KeyObject, measured here).
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import { promisify } from 'node:util';
import { toCrlf } from './crlf.js';

/**
 * The signed header fields. Each is listed once more than the message has it (over-signing,
 * RFC 6376 §8.15), an absent one once: a verifier then finds the signature broken when any of
 * them is added, whether a Reply-To that was not there or a second Subject. RFC 8058 requires both
 * List-Unsubscribe headers to be covered.
 */
export const SIGNED_HEADERS = [
  'From',
  'Sender',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
  'X-Mailsvc-Message-ID',
];

export interface DkimKey {
  domain: string;
  selector: string;
  privateKey: KeyObject;
  /** The domain's return path (bounces.<domain>: MX and SPF) is published: envelope senders may use it. */
  hasReturnPath?: boolean;
}

export function parseDkimKey(
  domain: string,
  selector: string,
  privateKeyPem: string,
  hasReturnPath = false,
): DkimKey {
  return { domain, selector, privateKey: createPrivateKey(privateKeyPem), hasReturnPath };
}

/**
 * RFC 6376 §3.4.4: runs of whitespace one space, whitespace at line ends removed, empty lines at
 * the end removed, a non-empty body ends with CRLF. Whole-string passes, not a split per line.
 */
function relaxedBody(body: string): string {
  // only what changes is replaced: a tab, or a run of two or more blanks (single spaces stay)
  let b = body.replace(/[ \t]{2,}|\t/g, ' ').replace(/ \r\n/g, '\r\n');
  if (b.endsWith(' ')) b = b.slice(0, -1);
  let end = b.length;
  while (end >= 2 && b.charCodeAt(end - 1) === 10 && b.charCodeAt(end - 2) === 13) end -= 2;
  return end === 0 ? '' : `${b.slice(0, end)}\r\n`;
}

const CRLF = Buffer.from('\r\n');

/**
 * The body hash (§3.7). A body without a tab, two blanks in a row or a blank at a line end (our
 * own quoted-printable MIME has none) is its relaxed form once the empty lines at its end are
 * dropped: it is hashed in place, without a copy.
 */
function bodyHash(body: Buffer): string {
  const hash = createHash('sha256');
  const isRelaxed =
    body.indexOf(9) === -1 &&
    body.indexOf('  ') === -1 &&
    body.indexOf(' \r\n') === -1 &&
    body[body.length - 1] !== 32;
  if (isRelaxed) {
    let end = body.length;
    while (end >= 2 && body[end - 1] === 10 && body[end - 2] === 13) end -= 2;
    if (end > 0) hash.update(body.subarray(0, end)).update(CRLF);
  } else {
    hash.update(relaxedBody(body.toString('latin1')), 'latin1');
  }
  return hash.digest('base64');
}

/** RFC 6376 §3.4.2: name lowercased, value unfolded, whitespace runs one space, trimmed; no CRLF. */
function relaxedHeader(field: string): string {
  const colon = field.indexOf(':');
  const name = field
    .slice(0, colon)
    .replace(/[ \t]+$/, '')
    .toLowerCase();
  const value = field
    .slice(colon + 1)
    .replace(/\r\n(?=[ \t])/g, '')
    .replace(/[ \t]+/g, ' ')
    // only SP and HTAB (RFC 6376 §3.4.2): String.trim() would also take 0xA0, a byte of UTF-8 text
    // read as latin1. (The composer writes encoded words, so no header here carries raw 8-bit.)
    .replace(/^ | $/g, '');
  return `${name}:${value}`;
}

/** The header fields in order, each with its folded continuation lines, without the final CRLF. */
function headerFields(header: string): string[] {
  const fields: string[] = [];
  for (const line of header.split('\r\n')) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0)
      fields[fields.length - 1] += `\r\n${line}`;
    else if (line !== '') fields.push(line);
  }
  return fields;
}

/** Joins `items` with `sep`, breaking the line (CRLF + space) before an item that would pass 76 columns. */
function fold(start: string, items: string[], sep: string): string {
  let out = start;
  // The column is counted from the last line break of `start`, not from its beginning.
  const lastBreak = start.lastIndexOf('\r\n');
  let column = lastBreak === -1 ? start.length : start.length - lastBreak - 2;
  items.forEach((item, i) => {
    const piece = i === 0 ? item : `${sep}${item}`;
    if (i > 0 && column + piece.length > 76) {
      out += `${sep}\r\n `;
      out += item;
      column = 1 + item.length;
    } else {
      out += piece;
      column += piece.length;
    }
  });
  return out;
}

/** The bytes to sign and what to put them in; `sign` below and `signMessage` share it. */
function prepare(raw: Buffer, key: DkimKey): { unsigned: string; data: Buffer; message: Buffer } {
  // Line ends are made CRLF (a no-op for our own MIME), so the bytes signed are the bytes sent.
  const message = toCrlf(raw);
  const split = message.indexOf('\r\n\r\n');
  // read as latin1 so every byte survives the canonicalisation unchanged
  const header = (split < 0 ? message : message.subarray(0, split + 2)).toString('latin1');
  const bh = bodyHash(split < 0 ? Buffer.alloc(0) : message.subarray(split + 4));

  // Instances of a name are signed from the bottom up (§5.4.2); each name then once more.
  const byName = new Map<string, string[]>();
  for (const field of headerFields(header)) {
    const name = field.slice(0, field.indexOf(':')).trim().toLowerCase();
    const list = byName.get(name);
    if (list) list.push(field);
    else byName.set(name, [field]);
  }
  const names: string[] = [];
  const signed: string[] = [];
  for (const name of SIGNED_HEADERS) {
    const instances = byName.get(name.toLowerCase()) ?? [];
    for (let i = instances.length - 1; i >= 0; i--) {
      names.push(name);
      signed.push(`${relaxedHeader(instances[i]!)}\r\n`);
    }
    names.push(name);
  }

  const tags = fold(
    `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; q=dns/txt;\r\n d=${key.domain}; s=${key.selector};\r\n bh=${bh};\r\n h=`,
    names,
    ':',
  );
  const unsigned = `${tags}; b=`;
  const data = Buffer.from(`${signed.join('')}${relaxedHeader(unsigned)}`, 'latin1');
  return { unsigned, data, message };
}

function assemble(unsigned: string, signature: Buffer, message: Buffer): Buffer {
  const b = signature
    .toString('base64')
    .match(/.{1,72}/g)!
    .join('\r\n ');
  return Buffer.concat([Buffer.from(`${unsigned}\r\n ${b}\r\n`, 'latin1'), message]);
}

/** `raw` with CRLF line ends and a DKIM-Signature on top. */
export function signMessage(raw: Buffer, key: DkimKey): Buffer {
  const { unsigned, data, message } = prepare(raw, key);
  return assemble(unsigned, sign('sha256', data, key.privateKey), message);
}

/**
 * The same as `signMessage`, with the RSA operation (about 230 µs, most of a signature's cost) on
 * libuv's thread pool, so the worker's event loop builds and sends other messages meanwhile.
 */
export function signMessageAsync(raw: Buffer, key: DkimKey): Promise<Buffer> {
  const { unsigned, data, message } = prepare(raw, key);
  return new Promise((resolve, reject) =>
    sign('sha256', data, key.privateKey, (err, signature) =>
      err ? reject(err) : resolve(assemble(unsigned, signature, message)),
    ),
  );
}

export interface DkimKeyPair {
  selector: string;
  privateKeyPem: string;
  publicKeyPem: string;
}

/** The longest selector dkimSelectorFor() makes: `mailsvc-YYYYMM-` and the time in base 36 (9 characters until the year 5188). */
export const DKIM_SELECTOR_MAX_LENGTH = 'mailsvc-YYYYMM-'.length + 9;

/**
 * The dated selector of a key made at `now` (`mailsvc-YYYYMM`, DESIGN.md §13); a day and then a
 * minute are added when a selector in `taken` (the domain's current or retiring one) has the name.
 */
export function dkimSelectorFor(now: Date, taken: readonly (string | null)[] = []): string {
  const iso = now.toISOString();
  const month = `mailsvc-${iso.slice(0, 4)}${iso.slice(5, 7)}`;
  for (const candidate of [
    month,
    `${month}${iso.slice(8, 10)}`,
    `${month}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}`,
  ])
    if (!taken.includes(candidate)) return candidate;
  return `${month}-${now.getTime().toString(36)}`;
}

/** A new RSA-2048 key pair and its selector (synchronous: tests and the admin CLI). */
export function generateDkimKeyPair(now: Date, taken: readonly (string | null)[] = []): DkimKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { selector: dkimSelectorFor(now, taken), privateKeyPem: privateKey, publicKeyPem: publicKey };
}

const generateRsa = promisify(generateKeyPair);

/** The same off the event loop (the key takes 50-200 ms to find): the API's domains/add and rotate-dkim. */
export async function generateDkimKeyPairAsync(
  now: Date,
  taken: readonly (string | null)[] = [],
): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await generateRsa('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { selector: dkimSelectorFor(now, taken), privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** The base64 of a PEM public key's DER (the p= of its DKIM record). */
export function dkimPublicKeyBase64(publicKeyPem: string): string {
  return createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' }).toString('base64');
}

/** The TXT record value to publish at `<selector>._domainkey.<domain>`. */
export function dkimTxtValue(publicKeyPem: string): string {
  return `v=DKIM1; k=rsa; p=${dkimPublicKeyBase64(publicKeyPem)}`;
}
