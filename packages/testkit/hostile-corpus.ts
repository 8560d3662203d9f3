// The hostile-input corpus, shared by the core's and the wrapper's hostile.test.ts. Generated and
// deterministic (no random values): hostile strings for every string field of a body, structural
// attacks on bodies, header, method and path tricks, malformed HTTP for raw sockets (sent with
// raw-http.ts), and the rules every answer must satisfy (DESIGN.md §2): never a 5xx, always
// X-Request-Id, errors in the envelope with a catalogue code and its status, details as JSON Pointers.
import { MAX_ERROR_DETAILS } from '@mailsvc/contract/errors';
import { adminCommands } from '@mailsvc/server/src/domain/admin/index.js';
import { getFixture, getTemplate, jsonSchemaFor } from '@mailsvc/templates';
import type { Harness, Scope } from './harness.js';

// ---- what a request of the corpus is

export interface HostileRequest {
  /** Counted per endpoint in the report (a route, not a URL). */
  endpoint: string;
  /** What is hostile about it, for the failure report. */
  name: string;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: string | Buffer;
  /** It breaks a documented rule: it must be refused (4xx). */
  mustRefuse?: boolean;
  /** The refusal must be a 400 naming this JSON Pointer (a string PostgreSQL cannot store). */
  refusePath?: string;
  /** A known path with a method it does not allow: 405 with Allow. */
  expect405?: boolean;
  /** An oversized array or object (sizeBodies): refused with a small answer. */
  isSizeAttack?: boolean;
  /** An HTML page route (unsubscribe, dev inbox): its errors may be HTML pages. */
  isHtmlRoute?: boolean;
}

export interface Answer {
  status: number;
  /** Lowercase names. */
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

export type Catalogue = Readonly<Record<string, { readonly status: number }>>;

// ---- hostile values

/** Characters that break headers, hide or reorder text, or cannot be stored by PostgreSQL. */
export const HOSTILE_CHARACTERS: readonly (readonly [string, string])[] = [
  ['NUL', '\u0000'],
  ['lone high surrogate', '\ud800'],
  ['lone low surrogate', '\udfff'],
  ['reversed surrogate pair', '\udc00\ud800'],
  ['C0 BEL', '\u0007'],
  ['C0 ESC', '\u001b'],
  ['TAB', '\t'],
  ['VT', '\u000b'],
  ['DEL', '\u007f'],
  ['C1 NEL', '\u0085'],
  ['C1 CSI', '\u009b'],
  ['bidi RLO', '\u202e'],
  ['bidi LRI', '\u2066'],
  ['bidi RLM', '\u200f'],
  ['bidi ALM', '\u061c'],
  ['zero-width space', '\u200b'],
  ['zero-width joiner', '\u200d'],
  ['word joiner', '\u2060'],
  ['soft hyphen', '\u00ad'],
  ['BOM', '\ufeff'],
  ['line separator', '\u2028'],
  ['CR', '\r'],
  ['LF', '\n'],
  ['CRLF Bcc injection', '\r\nBcc: evil@example.com'],
];

/**
 * Printable ASCII that a mail reader would decode, were it written into a header as it is: tried
 * in every free-text and name field (identifiers and addresses refuse or take it by their own rules).
 */
export const ENCODED_WORDS: readonly (readonly [string, string])[] = [
  ['an RFC 2047 encoded CRLF header injection', '=?utf-8?Q?x=0D=0AX-Injected-SS:_1?='],
  ['an RFC 2047 encoded bidi RLO', '=?utf-8?Q?=E2=80=AEevil?='],
];

/** Appended to a valid value: truncation and header-injection shapes. */
const SUFFIXES: readonly (readonly [string, string])[] = [
  ['NUL', '\u0000'],
  ['lone high surrogate', '\ud800'],
  ['bidi RLO', '\u202e'],
  ['CRLF Bcc injection', '\r\nBcc: evil@example.com'],
  ['LF Bcc injection', '\nBcc: evil@example.com'],
];

export const WRONG_TYPES: readonly (readonly [string, unknown])[] = [
  ['a number', 42],
  ['a boolean', true],
  ['null', null],
  ['an empty array', []],
  ['an array of strings', ['x']],
  ['an object', { x: 'y' }],
];

export const SIXTY_FOUR_KB = 64 * 1024;

/** Free text (only what PostgreSQL cannot store is refused), or a rule with refusals. */
export type FieldKind =
  | 'text'
  /** One line of display text: control, bidirectional and invisible characters refused. */
  | 'name'
  /** A metadata value (DESIGN.md §12): C0 and C1 controls, DEL, U+2028 and U+2029 refused, anything else kept. */
  | 'metadata'
  | 'email'
  | 'url'
  | 'domain'
  /** Identifiers, enums, versions, timestamps, keys: any change to a valid value is refused. */
  | 'exact';

export interface FieldSpec {
  /** JSON Pointer of the field in the body. */
  pointer: string;
  kind: FieldKind;
  /** A valid value; hostile characters are inserted into it. */
  valid: string;
  /** Length limits (schema maxLength and any later rule); each is tried just over. */
  limits: number[];
  /** '' is a valid value (clears a setting, or free text). */
  allowEmpty?: boolean;
  /** null is a valid value (the schema's union with null): the null variant may be accepted. */
  nullable?: boolean;
  /** Field-specific attacks, with whether they must be refused. */
  extra?: Variant[];
}

export interface Variant {
  name: string;
  value: unknown;
  mustRefuse: boolean;
}

const isStorable = (s: string) =>
  !s.includes('\u0000') && (s as string & { isWellFormed(): boolean }).isWellFormed();

// DESIGN.md §2 and the display-name rule (@mailsvc/contract/display-name), written out here rather
// than imported, so a change to the product's character class is caught: C0 and C1 controls, soft
// hyphen, line and paragraph separators, bidirectional controls, invisible characters.
export const NAME_REFUSED =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
// Addresses, domains and links refuse the same characters and any whitespace (after trimming, for
// addresses): IDNA would silently drop tabs, line breaks, soft hyphens and zero-width characters,
// and a bidirectional control makes a link read as something else (contract/src/email.ts, templates/src/blocks/url.ts).
const ADDRESS_REFUSED = new RegExp(`\\s|${NAME_REFUSED.source}`);
/** An address as it may be stored: normalised, printable ASCII, no spaces or line breaks. */
export const STORED_ADDRESS = /^[!-~]+@[a-z0-9.-]+$/;
const URL_SHAPE = /^https?:\/\/[^/?#@\\]+(?:[/?#]|$)/i;

/** Whether a value must be refused in a field of this kind (a documented rule), independently of the product's code. */
export function mustRefuseValue(spec: FieldSpec, value: unknown): boolean {
  if (typeof value !== 'string') return true;
  if (!isStorable(value)) return true;
  if (value.length > Math.min(...spec.limits)) return true;
  if (value === '') return !spec.allowEmpty;
  switch (spec.kind) {
    case 'text':
      return false;
    case 'name':
      return NAME_REFUSED.test(value);
    case 'metadata':
      return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value);
    case 'email':
    case 'domain':
      return value.trim() === '' || ADDRESS_REFUSED.test(value.trim());
    case 'url':
      return ADDRESS_REFUSED.test(value) || !URL_SHAPE.test(value);
    case 'exact':
      return true;
  }
}

function domainOfLength(length: number): string {
  // label.label…com: at most 63 characters per label.
  const labels: string[] = [];
  let remaining = length - 3; // the final "com"; each label is followed by one dot
  while (remaining > 0) {
    let take = Math.min(63, remaining - 1);
    if (remaining - (take + 1) === 1) take -= 1;
    labels.push('b'.repeat(take));
    remaining -= take + 1;
  }
  return `${labels.join('.')}.com`;
}

/** A value of exactly `length` characters, shaped like the field's valid values. */
export function valueOfLength(spec: FieldSpec, length: number): string {
  if (spec.kind === 'email') {
    if (length <= 64 + 1 + 5) return `${'a'.repeat(Math.max(1, length - 12))}@example.com`;
    return `${'a'.repeat(64)}@${domainOfLength(length - 65)}`;
  }
  if (spec.kind === 'domain') return domainOfLength(length);
  if (spec.kind === 'url') return `https://app.example.com/${'a'.repeat(Math.max(0, length - 24))}`;
  return spec.valid.length >= length
    ? 'a'.repeat(length)
    : spec.valid + 'a'.repeat(length - spec.valid.length);
}

/** Every hostile variant of one string field. */
export function fieldVariants(spec: FieldSpec): Variant[] {
  const out: Variant[] = [];
  const add = (name: string, value: unknown, mustRefuse = mustRefuseValue(spec, value)) =>
    out.push({ name, value, mustRefuse });
  const middle = Math.floor(spec.valid.length / 2);
  for (const [name, c] of HOSTILE_CHARACTERS)
    add(`${name} inside`, spec.valid.slice(0, middle) + c + spec.valid.slice(middle));
  for (const [name, c] of SUFFIXES) add(`${name} at the end`, spec.valid + c);
  if (spec.kind === 'text' || spec.kind === 'name' || spec.kind === 'metadata')
    for (const [name, word] of ENCODED_WORDS)
      add(`${name} inside`, spec.valid.slice(0, middle) + word + spec.valid.slice(middle));
  add('an empty string', '');
  add('only spaces', '   ');
  for (const limit of [...new Set(spec.limits)])
    add(`${limit + 1} characters (limit ${limit})`, valueOfLength(spec, limit + 1));
  add('64 KB', valueOfLength(spec, SIXTY_FOUR_KB));
  for (const [name, value] of WRONG_TYPES) add(name, value, !(value === null && spec.nullable));
  for (const v of spec.extra ?? []) out.push(v);
  return out;
}

const refuse = (name: string, value: unknown): Variant => ({ name, value, mustRefuse: true });
const either = (name: string, value: unknown): Variant => ({ name, value, mustRefuse: false });

/** Attacks on addresses beyond single characters. */
export const EMAIL_ATTACKS: Variant[] = [
  refuse('two addresses', 'jane@example.com, evil@example.com'),
  refuse('a display name', '"Evil" <evil@example.com>'),
  refuse('an address in angle brackets', '<jane@example.com>'),
  refuse('an IP literal', 'jane@[127.0.0.1]'),
  refuse('a dotless domain', 'jane@localhost'),
  refuse('a numeric TLD', 'jane@example.123'),
  refuse('a 65-character local part', `${'a'.repeat(65)}@example.com`),
  refuse('two dots', 'jane..doe@example.com'),
  refuse('an empty label', 'jane@example..com'),
  refuse('a label starting with a hyphen', 'jane@-example.com'),
  refuse('no local part', '@example.com'),
  refuse('no domain', 'jane@'),
  refuse('no @', 'jane'),
  refuse('two @', 'jane@evil.example@example.com'),
  refuse('a quoted local part', '"jane doe"@example.com'),
  refuse('a comment', 'jane(comment)@example.com'),
  refuse('a trailing dot in the local part', 'jane.@example.com'),
  either('an encoded word as local part', '=?utf-8?q?evil=40example.com?=@example.com'),
  either('an IDN domain', 'jane@bücher.example'),
  either('upper case', 'JANE@EXAMPLE.COM'),
  either('surrounding spaces', '  jane@example.com  '),
  either('a percent hack', 'jane%evil.example@example.com'),
];

export const URL_ATTACKS: Variant[] = [
  refuse('javascript:', 'javascript:alert(1)'),
  refuse('javascript: in upper case', 'JAVASCRIPT:alert(1)'),
  refuse('data:', 'data:text/html,<script>alert(1)</script>'),
  refuse('vbscript:', 'vbscript:msgbox(1)'),
  refuse('file:', 'file:///etc/passwd'),
  refuse('ftp:', 'ftp://example.com/'),
  refuse('scheme-relative', '//evil.example/'),
  refuse('userinfo', 'https://paypal.com@evil.example/'),
  refuse('userinfo with a password', 'https://user:pass@evil.example/'),
  refuse('a backslash in the authority', 'https://evil.example\\@app.example.com/'),
  refuse('no host', 'https://'),
  refuse('one slash', 'https:/evil.example'),
  refuse('a space in the host', 'https://ex ample.com/'),
  refuse('a leading space', ' https://app.example.com/'),
  refuse('a tab in the path', 'https://app.example.com/a\tb'),
  either('markup in the path', 'https://app.example.com/"><script>alert(1)</script>'),
  either('upper case scheme', 'HTTPS://APP.EXAMPLE.COM/'),
  either('an IPv6 host', 'https://[::1]/'),
  either('a percent-encoded CRLF', 'https://app.example.com/%0d%0aSet-Cookie:x=y'),
  refuse('a bidi override in the path', 'https://app.example.com/\u202egnp.exe'),
];

export const IDENTIFIER_ATTACKS: Variant[] = [
  refuse('__proto__', '__proto__'),
  refuse('constructor', 'constructor'),
  refuse('toString', 'toString'),
  refuse('hasOwnProperty', 'hasOwnProperty'),
  refuse('a path traversal', '../../etc/passwd'),
  refuse('SQL', "x' OR '1'='1"),
  refuse('a percent-encoded NUL', '%00'),
  refuse('a template expression', '{{7*7}}#{7*7}'),
];

/** Attacks on a group slug (^[a-z0-9][a-z0-9-]{0,62}$): anything else is refused. */
export const GROUP_SLUG_ATTACKS: Variant[] = [
  ...IDENTIFIER_ATTACKS.filter((v) => v.value !== 'constructor'),
  either('constructor (a valid slug)', 'constructor'),
  refuse('upper case', 'Beta-Testers'),
  refuse('a leading hyphen', '-beta'),
  refuse('an underscore', 'beta_testers'),
  refuse('a space', 'beta testers'),
  refuse('a dot', 'beta.testers'),
  refuse('an accented letter', 'bêta'),
  refuse('a fullwidth letter', '\uff42eta'),
  either('a trailing hyphen', 'beta-'),
  either('digits only', '2026'),
  either('63 characters', 'a'.repeat(63)),
];

/** Timestamps PostgreSQL or RFC 3339 cannot take as given. */
export const TIMESTAMP_ATTACKS: Variant[] = [
  refuse('month 13', '2026-13-01T00:00:00Z'),
  refuse('a date only', '2026-11-22'),
  refuse('a word', 'now'),
  refuse('an offset of 24 hours', '2026-11-22T10:15:30+24:00'),
  refuse('no offset', '2026-11-22T10:15:30'),
  refuse('a six-digit year', '+275760-09-13T00:00:00Z'),
  either('year 0000', '0000-01-01T00:00:00Z'),
  either('a leap second', '2026-12-31T23:59:60Z'),
  either('an offset of 23:59', '2026-11-22T10:15:30+23:59'),
  either('nanoseconds', '2026-11-22T10:15:30.123456789Z'),
];

// ---- bodies

/** A copy of `base` with `value` at the JSON Pointer `pointer` (parents created as objects). */
export function withValue(base: unknown, pointer: string, value: unknown): unknown {
  const copy = structuredClone(base) as Record<string, unknown>;
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  let node = copy;
  for (const part of parts.slice(0, -1)) {
    if (node[part] === null || typeof node[part] !== 'object') node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
  return copy;
}

export interface BodyCase {
  name: string;
  body: string | Buffer;
  mustRefuse: boolean;
  refusePath?: string;
  /** An oversized array or object: refused at once, the answer small (details capped, DESIGN.md §2). */
  isSizeAttack?: boolean;
  /** Overrides the JSON content type. */
  contentType?: string | undefined;
}

/** One body per hostile variant of each field. */
export function fieldBodies(base: unknown, fields: FieldSpec[]): BodyCase[] {
  const out: BodyCase[] = [];
  for (const spec of fields) {
    for (const v of fieldVariants(spec)) {
      const cannotStore = typeof v.value === 'string' && !isStorable(v.value);
      out.push({
        name: `${spec.pointer}: ${v.name}`,
        body: JSON.stringify(withValue(base, spec.pointer, v.value)),
        mustRefuse: v.mustRefuse,
        ...(cannotStore && { refusePath: spec.pointer }),
      });
    }
  }
  return out;
}

export const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
export const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}{}${'}'.repeat(levels)}`;

/** `base` as JSON text with `"key": <raw JSON>` added inside the object at `pointer`. */
function withRawMember(base: unknown, pointer: string, key: string, rawValue: string): string {
  const marker = '__hostile_marker__';
  const text = JSON.stringify(withValue(base, pointer === '' ? `/${marker}` : `${pointer}/${marker}`, 0));
  return text.replace(`"${marker}":0`, `${JSON.stringify(key)}:${rawValue}`);
}

/** Items of an oversized array, keys of an oversized object: what a 200 KB body can hold. */
export const SIZE_ATTACK_ITEMS = 100_000;
export const SIZE_ATTACK_KEYS = 15_000;
/** An error answer to a size attack stays this small, whatever the input. */
export const SIZE_ATTACK_ANSWER_BYTES = 8 * 1024;

type JsonSchemaNode = Record<string, unknown>;
const isNode = (v: unknown): v is JsonSchemaNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a body schema takes an array, or an object of open keys: JSON Pointer → kind. */
function containersOf(schema: unknown, pointer = '', out = new Map<string, 'array' | 'object'>()) {
  if (!isNode(schema)) return out;
  for (const branch of [...((schema.anyOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? [])])
    containersOf(branch, pointer, out);
  if (schema.type === 'array' && pointer !== '') out.set(pointer, 'array');
  const isOpen =
    schema.additionalProperties === true ||
    isNode(schema.additionalProperties) ||
    isNode(schema.patternProperties);
  if (schema.type === 'object' && isOpen && pointer !== '') out.set(pointer, 'object');
  if (isNode(schema.properties))
    for (const [key, sub] of Object.entries(schema.properties))
      containersOf(sub, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, out);
  return out;
}

/**
 * Issue 22's shapes: every array of a body schema given 100,000 items, and every object of open
 * keys 15,000 keys (both far beyond what the schema allows); `extra` pointers (the root: '') get
 * 15,000 keys too. Each must be refused with a small
 * answer, at once: one caller must not freeze the service for every tenant.
 */
export function sizeBodies(base: Record<string, unknown>, schema: unknown, extra: string[] = []): BodyCase[] {
  const places = containersOf(schema);
  for (const pointer of extra) places.set(pointer, 'object');
  const wide = `{${Array.from({ length: SIZE_ATTACK_KEYS }, (_, i) => `"k${i}":${i}`).join(',')}}`;
  const long = `[${'0,'.repeat(SIZE_ATTACK_ITEMS - 1)}0]`;
  const marker = '"__size_attack_marker__"';
  return [...places].map(([pointer, kind]) => ({
    name: `${kind === 'array' ? `${SIZE_ATTACK_ITEMS.toLocaleString('en')} items` : `${SIZE_ATTACK_KEYS.toLocaleString('en')} keys`} at ${pointer || 'the root'}`,
    // The root: the body itself is the wide object (every key unknown).
    body:
      pointer === ''
        ? wide
        : JSON.stringify(withValue(base, pointer, '__size_attack_marker__')).replace(
            marker,
            kind === 'array' ? long : wide,
          ),
    mustRefuse: true,
    isSizeAttack: true,
  }));
}

/**
 * Attacks on the body as a whole: not JSON, not an object, prototype keys, duplicate keys, deep
 * nesting, huge arrays and objects, bodies over 256 KiB, content types. `nestAt` is the pointer of
 * an object in `base` where extra members go (the template data, or the root).
 */
export function structuralBodies(base: Record<string, unknown>, nestAt: string): BodyCase[] {
  const json = JSON.stringify(base);
  const r = (name: string, body: string | Buffer, extra: Partial<BodyCase> = {}): BodyCase => ({
    name,
    body,
    mustRefuse: true,
    ...extra,
  });
  const e = (name: string, body: string | Buffer, extra: Partial<BodyCase> = {}): BodyCase => ({
    name,
    body,
    mustRefuse: false,
    ...extra,
  });
  const firstKey = Object.keys(base)[0];
  // The first string value of the body, where raw bytes are spliced in.
  const stringAt = json.indexOf('":"') + 3;
  const out: BodyCase[] = [
    r('an empty body', ''),
    r('only whitespace', ' \r\n\t '),
    r('null', 'null'),
    r('true', 'true'),
    r('a number', '42'),
    r('a string', '"hello"'),
    r('an empty array', '[]'),
    r('the body inside an array', `[${json}]`),
    r('an unterminated object', '{'),
    r('truncated', json.slice(0, -1)),
    r('a missing value', '{"a":}'),
    r('single quotes', "{'a':1}"),
    r('a trailing comma', `${json.slice(0, -1)},}`),
    r('a comment', `${json}/* comment */`),
    r('NaN', 'NaN'),
    r('Infinity as a value', withRawMember(base, nestAt, 'x', 'Infinity')),
    r('two bodies', `${json}${json}`),
    r('UTF-16', Buffer.from(json, 'utf16le'), { contentType: 'application/json; charset=utf-16' }),
    e('a BOM before the body', `\ufeff${json}`),
    r('__proto__ at the root', `{"__proto__":{"isAdmin":true},${json.slice(1)}`),
    r('__proto__ in the nested object', withRawMember(base, nestAt, '__proto__', '{"isAdmin":true}')),
    r('constructor.prototype at the root', `{"constructor":{"prototype":{"isAdmin":true}},${json.slice(1)}`),
    r(
      'constructor.prototype in the nested object',
      withRawMember(base, nestAt, 'constructor', '{"prototype":{"isAdmin":true}}'),
    ),
    r('an unknown property', withRawMember(base, '', 'isAdmin', 'true')),
    r('an unknown property in the nested object', withRawMember(base, nestAt, 'isAdmin', 'true')),
    r('a key with NUL', withRawMember(base, nestAt, 'a\u0000b', '1')),
    r('a key with a lone surrogate', withRawMember(base, nestAt, 'a\ud800b', '1')),
    r('a 64 KB key', withRawMember(base, nestAt, 'k'.repeat(SIXTY_FOUR_KB), '1')),
    r('5,000 nested arrays', withRawMember(base, nestAt, 'deep', nestedArrays(5000))),
    r('5,000 nested objects', withRawMember(base, nestAt, 'deep', nestedObjects(5000))),
    r('100,000 nested arrays', withRawMember(base, nestAt, 'deep', nestedArrays(100_000))),
    r('33 nested arrays (one over the bound)', withRawMember(base, nestAt, 'deep', nestedArrays(33))),
    r('a 50,000-element array', withRawMember(base, nestAt, 'big', `[${'0,'.repeat(49_999)}0]`)),
    r(
      'an object of 5,000 keys',
      withRawMember(
        base,
        nestAt,
        'wide',
        `{${Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
      ),
    ),
    r('a body of 256 KiB + 1 byte', padTo(base, nestAt, 256 * 1024 + 1)),
    r('a body of 1 MB', padTo(base, nestAt, 1024 * 1024)),
    r('a number with a 10,000-digit exponent', withRawMember(base, nestAt, 'n', `1e${'9'.repeat(10_000)}`)),
    r(
      '100,000 nested arrays after a constructor key (the prototype scan)',
      withRawMember(base, nestAt, 'constructor', `{"x":${nestedArrays(100_000)}}`),
    ),
  ];
  if (stringAt > 2) {
    const splice = (bytes: string | Buffer) =>
      Buffer.concat([
        Buffer.from(json.slice(0, stringAt)),
        Buffer.from(bytes),
        Buffer.from(json.slice(stringAt)),
      ]);
    out.push(
      r('a raw LF inside a string', splice('a\nb')),
      r('a raw NUL byte inside a string', splice('a\u0000b')),
      r('a raw ESC byte inside a string', splice('\u001b[2J')),
      e('invalid UTF-8 bytes inside a string', splice(Buffer.from([0xff, 0xfe, 0xc0, 0xaf]))),
      e('an overlong UTF-8 NUL inside a string', splice(Buffer.from([0xc0, 0x80]))),
    );
  }
  if (firstKey !== undefined) {
    const key = JSON.stringify(firstKey);
    out.push(
      r(`duplicate ${firstKey}, the last one a number`, `${json.slice(0, -1)},${key}:42}`),
      e(
        `duplicate ${firstKey}, the first one hostile`,
        `{${key}:"x\\r\\nBcc: evil@example.com",${json.slice(1)}`,
      ),
    );
  }
  return out;
}

/** The structural attacks every body of every route gets; the full set runs on a few routes per endpoint group. */
const ESSENTIAL = new Set([
  'an empty body',
  'null',
  'the body inside an array',
  'truncated',
  '__proto__ at the root',
  '__proto__ in the nested object',
  'constructor.prototype in the nested object',
  'an unknown property',
  'an unknown property in the nested object',
  'a key with NUL',
  '5,000 nested arrays',
  'a body of 256 KiB + 1 byte',
]);

export function essentialBodies(base: Record<string, unknown>, nestAt: string): BodyCase[] {
  return [
    ...structuralBodies(base, nestAt).filter((c) => ESSENTIAL.has(c.name)),
    ...contentTypeBodies(base).filter((c) => c.contentType === undefined || c.contentType === 'text/plain'),
  ];
}

/** `base` with one extra string member so that the JSON text is exactly `bytes` long. */
function padTo(base: unknown, nestAt: string, bytes: number): string {
  const without = withRawMember(base, nestAt, 'pad', '""');
  return withRawMember(base, nestAt, 'pad', `"${'p'.repeat(bytes - without.length)}"`);
}

/** Content types other than JSON (refused with 415), and JSON spelled unusually (either). */
export const CONTENT_TYPES: readonly (readonly [string, string | undefined, boolean])[] = [
  ['no Content-Type', undefined, true],
  ['an empty Content-Type', '', true],
  ['text/plain', 'text/plain', true],
  ['a form', 'application/x-www-form-urlencoded', true],
  ['multipart', 'multipart/form-data; boundary=x', true],
  ['text/json', 'text/json', true],
  ['application/jsonx', 'application/jsonx', true],
  ['application/json-patch+json', 'application/json-patch+json', true],
  ['application/problem+json', 'application/problem+json', true],
  ['JSON with a charset', 'application/json; charset=utf-8', false],
  ['JSON in upper case', 'APPLICATION/JSON', false],
  ['JSON with a UTF-16 charset', 'application/json; charset=utf-16', false],
  ['JSON and text/plain', 'application/json, text/plain', false],
  ['JSON with a CRLF', 'application/json\r\nX-Injected: 1', false],
  ['JSON with a NUL', 'application/json\u0000', false],
  ['JSON padded with spaces', '  application/json  ', false],
];

export function contentTypeBodies(base: unknown): BodyCase[] {
  return CONTENT_TYPES.map(([name, type, mustRefuse]) => ({
    name: `Content-Type: ${name}`,
    body: JSON.stringify(base),
    mustRefuse,
    contentType: type,
  }));
}

// ---- template data

/** Templates whose every data field the corpus covers (a code, a required button, a details table, a notification). */
export const FEATURED_TEMPLATES = ['login-code', 'magic-link', 'email-changed', 'mention'];

// Display values in template data: JSON Schema's email format (no RFC 5321 lengths, no IDNA).
const DATA_EMAIL_ATTACKS: Variant[] = EMAIL_ATTACKS.map((v) =>
  ['a numeric TLD', 'a 65-character local part'].includes(v.name) ? { ...v, mustRefuse: false } : v,
);

interface SchemaNode {
  type?: string;
  pattern?: string;
  format?: string;
  maxLength?: number;
  minLength?: number;
  properties?: Record<string, SchemaNode>;
}

/**
 * Every string field of a template's data (objects' members included), from its JSON Schema, as
 * pointers under /data; `objects` are the pointers of its object fields; `data` its fixture.
 */
export function templateDataFields(
  templateId: string,
  /** Pointers already covered (by another template): skipped, and the new ones added. */
  covered?: Set<string>,
): {
  data: Record<string, unknown>;
  fields: FieldSpec[];
  objects: string[];
} {
  const version = getTemplate(templateId).version;
  const data = getFixture(version);
  const fields: FieldSpec[] = [];
  const objects: string[] = [];
  const walk = (props: Record<string, SchemaNode>, pointer: string, sample: Record<string, unknown>) => {
    for (const [name, node] of Object.entries(props)) {
      const at = `${pointer}/${name}`;
      if (node.type === 'object') {
        objects.push(at);
        walk(node.properties ?? {}, at, (sample[name] ?? {}) as Record<string, unknown>);
        continue;
      }
      if (covered?.has(at)) continue;
      covered?.add(at);
      const kind: FieldKind = node.pattern
        ? 'url'
        : node.format === 'email'
          ? 'email'
          : node.format
            ? 'exact'
            : 'text';
      const valid =
        typeof sample[name] === 'string'
          ? (sample[name] as string)
          : kind === 'url'
            ? 'https://app.example.com/open'
            : 'Hello there';
      fields.push({
        pointer: at,
        kind,
        valid,
        limits: [node.maxLength ?? 100_000],
        allowEmpty: kind === 'text' && !(node.minLength && node.minLength > 0),
        extra:
          kind === 'url'
            ? URL_ATTACKS
            : kind === 'email'
              ? DATA_EMAIL_ATTACKS
              : kind === 'exact'
                ? TIMESTAMP_ATTACKS
                : [],
      });
    }
  };
  walk((jsonSchemaFor(version) as { properties: Record<string, SchemaNode> }).properties, '/data', data);
  return { data, fields, objects };
}

/** A wrong type (not an object) for each object field. */
export function wrongTypeBodies(base: unknown, pointer: string): BodyCase[] {
  return WRONG_TYPES.filter(([, v]) => v === null || typeof v !== 'object' || Array.isArray(v)).map(
    ([name, value]) => ({
      name: `${pointer}: ${name}`,
      body: JSON.stringify(withValue(base, pointer, value)),
      mustRefuse: true,
    }),
  );
}

// ---- the rules every answer must satisfy

const REQUEST_ID = /^req_[0-9A-Z]{26}$/;
const JSON_POINTER = /^(\/([^~/]|~[01])*)+$/;

const headerOf = (a: Answer, name: string): string | undefined => {
  const v = a.headers[name] ?? a.headers[name.toLowerCase()];
  return v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : String(v);
};

/** Problems of one answer (empty: it satisfies every rule). */
export function answerProblems(req: HostileRequest, res: Answer, catalogue: Catalogue): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`answered ${res.status}, a 5xx`);
  if (!(res.status >= 100 && res.status < 600)) problems.push('no parsable HTTP answer');
  const requestId = headerOf(res, 'x-request-id');
  if (requestId === undefined) problems.push('no X-Request-Id');
  else if (!REQUEST_ID.test(requestId))
    problems.push(`X-Request-Id ${JSON.stringify(requestId)} is not req_<ULID>`);
  const type = headerOf(res, 'content-type') ?? '';
  const isJson = /^application\/json\b/i.test(type);
  const hasBody = req.method !== 'HEAD' && res.body !== '';
  if (res.status >= 400 && isJson && hasBody) problems.push(...envelopeProblems(res, requestId, catalogue));
  if (res.status >= 400 && !isJson && res.status !== 204) {
    if (!req.isHtmlRoute)
      problems.push(`an error answered as ${JSON.stringify(type)}, not the JSON envelope`);
    else if (!/^text\/html\b/.test(type)) problems.push(`an error page answered as ${JSON.stringify(type)}`);
  }
  if (res.status >= 400 && req.method !== 'HEAD' && res.body === '') problems.push('an error without a body');
  if (req.mustRefuse && res.status < 400)
    problems.push(`accepted (${res.status}) what a documented rule refuses`);
  if (req.refusePath !== undefined && res.status < 500) {
    const details = safeJson(res.body)?.error?.details as { path?: unknown }[] | undefined;
    if (res.status !== 400 || !details?.some((d) => d.path === req.refusePath))
      problems.push(`not a 400 naming ${req.refusePath} (a string PostgreSQL cannot store)`);
  }
  if (req.isSizeAttack) {
    if (res.status < 400) problems.push('accepted an oversized array or object');
    if (Buffer.byteLength(res.body) > SIZE_ATTACK_ANSWER_BYTES)
      problems.push(
        `answered ${Buffer.byteLength(res.body)} bytes to a size attack (at most ${SIZE_ATTACK_ANSWER_BYTES})`,
      );
  }
  if (req.expect405) {
    if (res.status !== 405)
      problems.push(`answered ${res.status} for a method the path does not allow, not 405`);
    else if (!headerOf(res, 'allow')) problems.push('a 405 without Allow');
  }
  return problems;
}

// biome-ignore lint/suspicious/noExplicitAny: the body is checked field by field
function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function envelopeProblems(res: Answer, requestId: string | undefined, catalogue: Catalogue): string[] {
  const body = safeJson(res.body);
  if (body === undefined) return ['a JSON error whose body does not parse'];
  const out: string[] = [];
  const keys = body && typeof body === 'object' ? Object.keys(body).sort() : [];
  if (keys.join() !== 'error,ok' || body.ok !== false) out.push('not exactly {ok: false, error}');
  const error = body?.error;
  if (!error || typeof error !== 'object') return [...out, 'no error object'];
  const extra = Object.keys(error).filter((k) => !['code', 'message', 'requestId', 'details'].includes(k));
  if (extra.length > 0) out.push(`error has extra keys ${extra.join(', ')}`);
  if (typeof error.message !== 'string' || error.message === '') out.push('error.message is not a sentence');
  if (error.requestId !== requestId)
    out.push(`error.requestId ${error.requestId} is not X-Request-Id ${requestId}`);
  if (typeof error.code !== 'string' || !Object.hasOwn(catalogue, error.code))
    out.push(`code ${JSON.stringify(error.code)} is not in the catalogue`);
  else if (catalogue[error.code]!.status !== res.status)
    out.push(
      `code ${error.code} answered ${res.status}, its catalogue status is ${catalogue[error.code]!.status}`,
    );
  if (error.details !== undefined) {
    if (!Array.isArray(error.details) || error.details.length === 0)
      out.push('details is not a non-empty array');
    else if (error.details.length > MAX_ERROR_DETAILS)
      out.push(`details lists ${error.details.length} problems (at most ${MAX_ERROR_DETAILS})`);
    else
      for (const d of error.details) {
        const dk = d && typeof d === 'object' ? Object.keys(d).sort().join() : '';
        if (dk !== 'message,path' || typeof d.path !== 'string' || typeof d.message !== 'string')
          out.push(`detail ${JSON.stringify(d).slice(0, 120)} is not {path, message}`);
        else if (!JSON_POINTER.test(d.path))
          out.push(`detail path ${JSON.stringify(d.path)} is not a JSON Pointer`);
      }
  }
  return out;
}

// ---- reporting

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
/** Printable ASCII as is, everything else as \uXXXX, so invisible characters show in the report. */
export const visible = (s: string) =>
  s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const show = (s: string, n: number) => clip(visible(s), n);

/** One line per failing request: what was sent, what came back, why it is wrong. */
export function describeFailure(req: HostileRequest, res: Answer, problems: string[]): string {
  const body =
    req.body === undefined
      ? ''
      : ` body=${show(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : req.body, 300)}`;
  const headers = Object.entries(req.headers)
    .filter(([k, v]) => v !== undefined && k !== 'authorization')
    .map(([k, v]) => `${k}: ${show(String(v), 60)}`)
    .join('; ');
  return (
    `[${req.endpoint}] ${req.name}: ${req.method} ${show(req.url, 120)} {${headers}}${body}` +
    ` → ${res.status} ${show(res.body, 240)} — ${problems.join('; ')}`
  );
}

export class Tally {
  readonly byEndpoint = new Map<string, number>();
  readonly byStatus = new Map<number, number>();
  total = 0;
  add(endpoint: string, status: number) {
    this.byEndpoint.set(endpoint, (this.byEndpoint.get(endpoint) ?? 0) + 1);
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    this.total += 1;
  }
  report(title: string): string {
    const rows = [...this.byEndpoint].sort(([a], [b]) => a.localeCompare(b));
    const statuses = [...this.byStatus]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    return [
      `${title}: ${this.total} requests`,
      ...rows.map(([e, n]) => `  ${String(n).padStart(5)}  ${e}`),
      `  statuses: ${statuses}`,
    ].join('\n');
  }
}

/** Runs `requests` with at most `concurrency` in flight; results in the same order. */
export async function runPool<T, R>(
  items: T[],
  concurrency: number,
  run: (item: T, i: number) => Promise<R>,
) {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await run(items[i]!, i);
      }
    }),
  );
  return out;
}

// ---- malformed HTTP over a raw socket

export interface RawCase {
  name: string;
  chunks: (string | Buffer)[];
  /** It must be refused (4xx). */
  mustRefuse?: boolean;
}

/** Requests Node's HTTP parser refuses, or that are odd but legal, for a server on `host`. */
export function malformedHttp(t: { postPath: string; getPath: string; extraHeaders?: string }): RawCase[] {
  const x = t.extraHeaders ?? '';
  const body = '{}';
  const post = `POST ${t.postPath} HTTP/1.1\r\nHost: x\r\n${x}Content-Type: application/json\r\n`;
  const get = (headers: string) =>
    `GET ${t.getPath} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`;
  return [
    { name: 'a CR in a header value', chunks: [get('X-A: a\rb\r\n')] },
    { name: 'a bare LF in a header value', chunks: [get('X-A: a\nb: c\r\n')] },
    { name: 'a NUL in a header value', chunks: [get('X-A: a\u0000b\r\n')] },
    { name: 'a CRLF Bcc injection in a header value', chunks: [get('X-A: a\r\nBcc evil@example.com\r\n')] },
    {
      name: 'two different Content-Lengths',
      chunks: [`${post}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`],
    },
    {
      name: 'two equal Content-Lengths',
      chunks: [`${post}Content-Length: 2\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`],
    },
    {
      name: 'Content-Length with Transfer-Encoding',
      chunks: [`${post}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    },
    {
      name: 'two Transfer-Encodings',
      chunks: [
        `${post}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      ],
    },
    {
      name: 'Transfer-Encoding: xchunked',
      chunks: [`${post}Transfer-Encoding: xchunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`],
    },
    { name: 'a bad chunk size', chunks: [`${post}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`] },
    {
      name: 'an overflowing chunk size',
      chunks: [`${post}Transfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n{}\r\n0\r\n\r\n`],
    },
    { name: 'a negative Content-Length', chunks: [`${post}Content-Length: -2\r\n\r\n{}`] },
    { name: 'a non-numeric Content-Length', chunks: [`${post}Content-Length: abc\r\n\r\n{}`] },
    { name: 'an obs-folded header', chunks: [get('X-A: a\r\n b\r\n')] },
    { name: 'a 20 KB header', chunks: [get(`X-Big: ${'a'.repeat(20 * 1024)}\r\n`)] },
    {
      name: '200 KB of headers',
      chunks: [get(Array.from({ length: 2000 }, (_, i) => `X-H${i}: ${'a'.repeat(90)}\r\n`).join(''))],
    },
    { name: 'HTTP/1.1 without Host', chunks: [`GET ${t.getPath} HTTP/1.1\r\nConnection: close\r\n\r\n`] },
    {
      name: 'two Host headers',
      chunks: [`GET ${t.getPath} HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`],
    },
    { name: 'HTTP/1.0 without Host', chunks: [`GET ${t.getPath} HTTP/1.0\r\n\r\n`] },
    { name: 'an unknown method', chunks: [`FOO ${t.getPath} HTTP/1.1\r\nHost: x\r\n\r\n`] },
    { name: 'a lowercase method', chunks: [`get ${t.getPath} HTTP/1.1\r\nHost: x\r\n\r\n`] },
    {
      name: 'garbage (a TLS ClientHello)',
      chunks: [Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0x0d, 0x0a, 0x0d, 0x0a])],
    },
    { name: 'binary garbage', chunks: [Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 37) % 256))] },
    { name: 'CONNECT', chunks: ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'] },
    { name: 'the HTTP/2 preface', chunks: ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'] },
    { name: 'HTTP/9.9', chunks: [`GET ${t.getPath} HTTP/9.9\r\nHost: x\r\n\r\n`] },
    {
      name: 'an absolute-form URI',
      chunks: [`GET http://evil.example${t.getPath} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`],
    },
    { name: 'asterisk-form OPTIONS', chunks: ['OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'] },
    { name: 'a NUL in the path', chunks: [`GET ${t.getPath}\u0000x HTTP/1.1\r\nHost: x\r\n\r\n`] },
    { name: 'a space in the path', chunks: [`GET /a b HTTP/1.1\r\nHost: x\r\n\r\n`] },
    {
      name: 'raw 0xFF bytes in the path',
      chunks: [
        Buffer.concat([
          Buffer.from('GET /v1/'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        ]),
      ],
    },
    {
      name: 'a 10 KB path',
      chunks: [`GET /${'a'.repeat(10 * 1024)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`],
    },
    { name: 'a header name with a space', chunks: [get('X A: b\r\n')] },
    { name: 'a header line without a colon', chunks: [get('XA\r\n')] },
    { name: 'an empty request line', chunks: ['\r\n\r\n\r\n'] },
    { name: 'CR-only line ends', chunks: [`GET ${t.getPath} HTTP/1.1\rHost: x\r\r`] },
    {
      name: 'a body over 256 KiB',
      chunks: [`${post}Content-Length: 300000\r\n\r\n`, `{"a":"${'a'.repeat(300_000 - 8)}"}`],
    },
    {
      name: 'a Content-Length over the limit, nothing sent',
      chunks: [`${post}Content-Length: 100000000\r\n\r\n`],
    },
    {
      name: 'Expect: 100-continue over the limit',
      chunks: [`${post}Expect: 100-continue\r\nContent-Length: 100000000\r\n\r\n`],
    },
    {
      name: 'a valid request pipelined with garbage',
      chunks: [`${post}Content-Length: ${body.length}\r\n\r\n${body}\u0000\u0001GARBAGE\r\n\r\n`],
    },
  ];
}

// ---- methods and paths

export const ALL_METHODS = [
  'ACL',
  'BIND',
  'CHECKOUT',
  'COPY',
  'DELETE',
  'GET',
  'HEAD',
  'LINK',
  'LOCK',
  'M-SEARCH',
  'MERGE',
  'MKACTIVITY',
  'MKCALENDAR',
  'MKCOL',
  'MOVE',
  'NOTIFY',
  'OPTIONS',
  'PATCH',
  'POST',
  'PROPFIND',
  'PROPPATCH',
  'PURGE',
  'PUT',
  'QUERY',
  'REBIND',
  'REPORT',
  'SEARCH',
  'SOURCE',
  'SUBSCRIBE',
  'TRACE',
  'UNBIND',
  'UNLINK',
  'UNLOCK',
  'UNSUBSCRIBE',
] as const;

/** Spellings of a path that routers, proxies and decoders disagree about. */
export function pathTricks(path: string): [string, string][] {
  const parts = path.split('/').filter(Boolean);
  const first = parts[0] ?? '';
  const rest = parts.slice(1).join('/');
  return [
    ['a bad percent-encoding', `/${first}/%zz`],
    ['a doubled leading slash', `/${path}`],
    ['a trailing slash', `${path}/`],
    ['many trailing slashes', `${path}${'/'.repeat(2000)}`],
    ['upper case', path.toUpperCase()],
    ['a query string', `${path}?x=1&x=2&__proto__[a]=1`],
    ['a dot segment', `/${first}/./${rest}`],
    ['a dot-dot segment', `/${first}/../${first}/${rest}`],
    ['an encoded slash', `/${first}%2F${rest}`],
    ['an encoded dot-dot', `/${first}/%2e%2e/${first}/${rest}`],
    ['an encoded NUL', `${path}%00`],
    ['an encoded CRLF', `${path}%0d%0aSet-Cookie:%20x=y`],
    ['a semicolon parameter', `${path};jsessionid=1`],
    ['an overlong UTF-8 slash', `/${first}%c0%af${rest}`],
    ['a fragment', `${path}#x`],
    ['a 10 KB path', `${path}/${'a'.repeat(10 * 1024)}`],
    ['a 10 KB query', `${path}?${'q'.repeat(10 * 1024)}`],
    ['a unicode path', `/${first}/\u202e${rest}`],
    ['a backslash', `/${first}\\${rest}`],
  ];
}

// ---- seeding

/** A plan roomy enough that the corpus reaches validation (quota, and the per-key rate limit when plans have one). */
export async function seedRoomyScope(harness: Harness, label: string): Promise<Scope> {
  const planId = `hostile-${label}-${process.pid}`;
  const planInput = adminCommands['plans.create']!.input as { properties: Record<string, unknown> };
  await harness.admin('plans.create', {
    id: planId,
    monthlyLimit: 2_000_000_000,
    overageAllowed: false,
    ...('rateLimitPerSecond' in planInput.properties && { rateLimitPerSecond: 1_000_000 }),
    ...('rateLimitBurst' in planInput.properties && { rateLimitBurst: 10_000_000 }),
  });
  const { tenant } = await harness.admin('tenants.create', { name: `Hostile ${label}`, plan: planId });
  const { project } = await harness.admin('projects.create', { tenant: tenant.id, name: 'Hostile App' });
  const { environment } = await harness.admin('environments.create', {
    project: project.id,
    name: 'production',
  });
  const { key, apiKey } = await harness.admin('keys.create', { environment: environment.id });
  return {
    planId,
    tenantId: tenant.id,
    projectId: project.id,
    environmentId: environment.id,
    keyId: key.id,
    apiKey,
  };
}
