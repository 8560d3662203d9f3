import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../ids.js';
import {
  captureTransport,
  deleteAllCaptured,
  findCaptured,
  inboxWatcherCount,
  listCaptured,
  readCaptured,
  STALE_TEMP_MS,
  watchInbox,
} from './capture.js';
import type { OutgoingMessage } from './transport.js';

let dir: string;
let clockMs = Date.parse('2026-11-22T10:00:00.000Z');
/** A new message id, a second after the last one. */
const nextId = () => {
  clockMs += 1000;
  return newId('msg', clockMs);
};

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-capture-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

function message(body: string, messageId = nextId()): OutgoingMessage {
  return {
    messageId,
    envelope: { from: `bounces+${messageId}@bounces.mailsvc.test`, to: 'jane@example.com' },
    raw: Buffer.from(`Subject: ${body}\r\n\r\n${body}\r\n`),
    meta: { templateId: 'welcome', subject: body },
  };
}

const writeIndex = (id: string, entry: unknown) =>
  fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(entry));

describe('index entries', () => {
  it('skips an entry that is not whole; accepts null for the optional fields', async () => {
    const good = message('good');
    await captureTransport(dir).send(good);
    const base = (id: string) => ({
      messageId: id,
      capturedAt: '2026-11-22T10:00:00.000Z',
      to: 'a@example.com',
      templateId: 'welcome',
      subject: 's',
    });
    const bad: [string, (id: string) => unknown][] = [
      ['only an id', (id) => ({ messageId: id })],
      ['no subject', (id) => ({ ...base(id), subject: undefined })],
      ['a number for to', (id) => ({ ...base(id), to: 7 })],
      ['null for a required field', (id) => ({ ...base(id), templateId: null })],
      ['a number for tenantId', (id) => ({ ...base(id), tenantId: 5 })],
      ['an object for projectName', (id) => ({ ...base(id), projectName: { x: 1 } })],
      ['another id', () => base(newId('msg', 1))],
      ['an array', () => []],
      ['null', () => null],
      ['a string', () => 'msg'],
    ];
    const badIds: string[] = [];
    for (const [, make] of bad) {
      const id = nextId();
      badIds.push(id);
      writeIndex(id, make(id));
      fs.writeFileSync(path.join(dir, `${id}.eml`), 'Subject: x\r\n\r\nx\r\n');
    }
    const nulls = nextId();
    writeIndex(nulls, { ...base(nulls), tenantId: null, projectId: null, projectName: null });

    expect((await listCaptured(dir)).map((e) => e.messageId)).toEqual([nulls, good.messageId]);
    for (const [i, [name]] of bad.entries()) expect(await findCaptured(dir, badIds[i]!), name).toBeNull();
    expect(await findCaptured(dir, nulls)).toEqual(base(nulls));
    // Its .eml is still there for the message page.
    expect(await readCaptured(dir, badIds[0]!)).not.toBeNull();
  });

  it('reads only as far as the limit asks, newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      const id = nextId();
      ids.push(id);
      writeIndex(id, {
        messageId: id,
        capturedAt: new Date(clockMs).toISOString(),
        to: `u${i}@example.com`,
        templateId: 'welcome',
        subject: String(i),
      });
    }
    const reads = vi.spyOn(fsp, 'readFile');
    const found = await listCaptured(dir, { limit: 3 });
    expect(found.map((e) => e.messageId)).toEqual(ids.slice(-3).reverse());
    expect(reads.mock.calls.length).toBeLessThanOrEqual(64);
  });
});

describe('writing', () => {
  it('replaces the .eml of a retry with a new file, never rewriting the one a reader has open', async () => {
    const first = message('first');
    await captureTransport(dir).send(first);
    const eml = path.join(dir, `${first.messageId}.eml`);
    // A reader holding the old file (here: a second name for it) must go on reading it whole.
    fs.linkSync(eml, path.join(dir, 'reader'));
    await captureTransport(dir).send({ ...first, raw: Buffer.from('Subject: retry\r\n\r\nretry\r\n') });
    expect(fs.readFileSync(eml, 'utf8')).toContain('Subject: retry');
    expect(fs.readFileSync(path.join(dir, 'reader'), 'utf8')).toContain('Subject: first');
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('deleteAllCaptured', () => {
  it('removes stale temporary files, not fresh ones (another process may be writing them)', async () => {
    await captureTransport(dir).send(message('kept until deleted'));
    const stale = [`${newId('msg', 1)}.json.tmp`, `${newId('msg', 2)}.eml.tmp`];
    const fresh = `${newId('msg', 3)}.eml.tmp`;
    const old = new Date(Date.now() - STALE_TEMP_MS - 5000);
    for (const name of stale) {
      fs.writeFileSync(path.join(dir, name), 'half');
      fs.utimesSync(path.join(dir, name), old, old);
    }
    fs.writeFileSync(path.join(dir, fresh), 'being written');
    fs.writeFileSync(path.join(dir, 'notes.txt.tmp'), 'not ours');

    expect(await deleteAllCaptured(dir)).toBe(1);
    expect(fs.readdirSync(dir).sort()).toEqual([fresh, 'notes.txt.tmp'].sort());
  });

  it('never removes a temporary file this process is writing, however old it looks', async () => {
    const write = fsp.writeFile.bind(fsp);
    let reached!: () => void;
    const isReached = new Promise<void>((r) => {
      reached = r;
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let gated = false;
    vi.spyOn(fsp, 'writeFile').mockImplementation(async (...args: Parameters<typeof fsp.writeFile>) => {
      await write(...args);
      const file = String(args[0]);
      if (file.endsWith('.tmp') && !gated) {
        gated = true;
        const old = new Date(Date.now() - 10 * STALE_TEMP_MS);
        await fsp.utimes(file, old, old);
        reached();
        await gate;
      }
    });
    const m = message('slow disk');
    const sending = captureTransport(dir).send(m);
    await isReached;
    expect(await deleteAllCaptured(dir)).toBe(0);
    expect(fs.readdirSync(dir)).toEqual([`${m.messageId}.eml.tmp`]);
    release();
    expect((await sending).kind).toBe('sent');
    expect(fs.readdirSync(dir).sort()).toEqual([`${m.messageId}.eml`, `${m.messageId}.json`]);
  });
});

describe('inboxWatcherCount', () => {
  it('counts the listeners of one directory, by its resolved path', () => {
    expect(inboxWatcherCount(dir)).toBe(0);
    const stopA = watchInbox(dir, () => {});
    const stopB = watchInbox(`${dir}/.`, () => {});
    expect(inboxWatcherCount(dir)).toBe(2);
    expect(inboxWatcherCount(path.join(dir, 'other'))).toBe(0);
    stopA();
    stopA();
    expect(inboxWatcherCount(dir)).toBe(1);
    stopB();
    expect(inboxWatcherCount(dir)).toBe(0);
  });
});
