// The embedded default transport (no MAILSVC_SMTP_URL): each message is written to
// MAILSVC_DATA_DIR/inbox as <messageId>.eml plus a small JSON index entry, and shown at /dev/inbox.
// This file is the inbox's storage: write, list, read, delete, and a change feed for the page.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DeliveryOutcome, OutgoingMessage, Transport } from './transport.js';

/**
 * One index entry (`<messageId>.json`). Read back only when every field has its type: the files
 * are on disk for anyone to edit, and an entry that is not whole is skipped (readEntry).
 */
export interface CapturedEntry {
  messageId: string;
  capturedAt: string;
  /** The envelope recipient (RCPT TO), in full: the dev inbox is the developer's own mail. */
  to: string;
  templateId: string;
  subject: string;
  // Recorded since the dev inbox filters by tenant; entries captured earlier have none of these.
  tenantId?: string;
  projectId?: string;
  environmentId?: string;
  /** The project's display name (else its name), as the mail signs with it. */
  projectName?: string;
  /** The tenant's name: recorded later than the others, so an entry may have a tenantId without it. */
  tenantName?: string;
}

export type InboxChange = { kind: 'captured'; messageId: string } | { kind: 'deleted'; messageIds: string[] };

const ID = /^msg_[0-9A-Z]{26}$/;

export function inboxDir(dataDir: string): string {
  return path.join(dataDir, 'inbox');
}

// Who is watching which inbox: the dev inbox's event stream (SSE). The capture transport and the
// pages run in one process (`mailsvc start`), so an in-process registry is enough; it is keyed by
// the resolved directory so two apps on two data directories (tests) do not hear each other.
const watchers = new Map<string, Set<(change: InboxChange) => void>>();

/** Calls `listener` on every capture or deletion in `dir`; returns the function that stops it. */
export function watchInbox(dir: string, listener: (change: InboxChange) => void): () => void {
  const key = path.resolve(dir);
  let set = watchers.get(key);
  if (!set) {
    set = new Set();
    watchers.set(key, set);
  }
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && watchers.get(key) === set) watchers.delete(key);
  };
}

/** How many listeners watch `dir`: the dev inbox's open event streams (tests check they are let go). */
export function inboxWatcherCount(dir: string): number {
  return watchers.get(path.resolve(dir))?.size ?? 0;
}

function notify(dir: string, change: InboxChange): void {
  for (const listener of watchers.get(path.resolve(dir)) ?? []) {
    try {
      listener(change);
    } catch {
      // A listener's failure (a closed stream) must not fail a delivery or a deletion.
    }
  }
}

// Both files of a message are written to `<name>.tmp` and renamed into place, so a reader (the
// pages, a test polling the API) sees the old file or the new one, never a half-written one.
// `writing`: the temporary files this process is writing right now; deleteAllCaptured leaves them
// alone, and those of other processes until they are STALE_TEMP_MS old (a write takes milliseconds).
const writing = new Set<string>();
export const STALE_TEMP_MS = 60_000;
const TEMP = /^msg_[0-9A-Z]{26}\.(eml|json)\.tmp$/;

async function writeAtomically(file: string, data: string | Buffer): Promise<void> {
  const temp = path.resolve(`${file}.tmp`);
  writing.add(temp);
  try {
    await fs.writeFile(temp, data, { mode: 0o600 });
    await fs.rename(temp, file);
  } catch (err) {
    await fs.unlink(temp).catch(() => {});
    throw err;
  } finally {
    writing.delete(temp);
  }
}

export function captureTransport(dir: string, now: () => Date = () => new Date()): Transport {
  let made = false;
  return {
    name: 'capture',
    async send(message: OutgoingMessage): Promise<DeliveryOutcome> {
      // The id names the files: only the server's own ids, as every read and delete checks.
      if (!ID.test(message.messageId))
        throw new Error(`not a message id: ${JSON.stringify(message.messageId)}`);
      if (!made) {
        await fs.mkdir(dir, { recursive: true, mode: 0o700 });
        made = true;
      }
      // A local delivery agent records the envelope sender as Return-Path; so does this one.
      const raw = Buffer.concat([Buffer.from(`Return-Path: <${message.envelope.from}>\r\n`), message.raw]);
      const { meta } = message;
      const entry: CapturedEntry = {
        messageId: message.messageId,
        capturedAt: now().toISOString(),
        to: message.envelope.to,
        templateId: meta.templateId,
        subject: meta.subject,
        ...(meta.tenantId && { tenantId: meta.tenantId }),
        ...(meta.projectId && { projectId: meta.projectId }),
        ...(meta.environmentId && { environmentId: meta.environmentId }),
        ...(meta.projectName && { projectName: meta.projectName }),
        ...(meta.tenantName && { tenantName: meta.tenantName }),
      };
      // A retry of the same message replaces its files: one entry per message. The index entry
      // is written last, so a listed entry always has its whole .eml.
      const base = path.join(dir, message.messageId);
      await writeAtomically(`${base}.eml`, raw);
      await writeAtomically(`${base}.json`, JSON.stringify(entry));
      notify(dir, { kind: 'captured', messageId: message.messageId });
      return { kind: 'sent', response: `250 captured ${message.messageId}` };
    },
    async close() {},
  };
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Ids of every indexed message, newest first (ids are time-ordered). */
export async function capturedIds(dir: string): Promise<string[]> {
  return (await namesIn(dir))
    .filter((n) => n.endsWith('.json') && ID.test(n.slice(0, -5)))
    .map((n) => n.slice(0, -5))
    .sort()
    .reverse();
}

const OPTIONAL = ['tenantId', 'projectId', 'environmentId', 'projectName', 'tenantName'] as const;

/** The entry, when `value` is one for `id`: required fields strings, optional ones strings or absent/null. */
function asEntry(value: unknown, id: string): CapturedEntry | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v.messageId !== id) return null;
  const { capturedAt, to, templateId, subject } = v;
  if (
    typeof capturedAt !== 'string' ||
    typeof to !== 'string' ||
    typeof templateId !== 'string' ||
    typeof subject !== 'string'
  )
    return null;
  const entry: CapturedEntry = { messageId: id, capturedAt, to, templateId, subject };
  for (const key of OPTIONAL) {
    const field = v[key];
    if (typeof field === 'string') entry[key] = field;
    else if (field !== undefined && field !== null) return null;
  }
  return entry;
}

/** The index entry, or null when it is missing, not JSON or not a whole entry (skipped, not an error). */
async function readEntry(dir: string, id: string): Promise<CapturedEntry | null> {
  try {
    return asEntry(JSON.parse(await fs.readFile(path.join(dir, `${id}.json`), 'utf8')), id);
  } catch {
    return null;
  }
}

const BATCH = 64;

/**
 * The readable index entries of `ids`, in their order, read BATCH files at a time and only as far
 * as the caller iterates: a caller that stops early (a full page) reads no further.
 */
export async function* readCapturedEntries(
  dir: string,
  ids: readonly string[],
): AsyncGenerator<CapturedEntry> {
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = await Promise.all(ids.slice(i, i + BATCH).map((id) => readEntry(dir, id)));
    for (const entry of batch) if (entry) yield entry;
  }
}

/**
 * Newest first: the first `limit` entries that `matches` accepts. Reading stops once `limit` are
 * found, so a filter over a large inbox reads only as far as it must.
 */
export async function listCaptured(
  dir: string,
  opts: { limit?: number; matches?: (entry: CapturedEntry) => boolean } = {},
): Promise<CapturedEntry[]> {
  const limit = opts.limit ?? 200;
  const found: CapturedEntry[] = [];
  if (limit < 1) return found;
  for await (const entry of readCapturedEntries(dir, await capturedIds(dir))) {
    if (!opts.matches || opts.matches(entry)) found.push(entry);
    if (found.length >= limit) break;
  }
  return found;
}

/** The index entry of one message, or null for an unknown or malformed id. */
export async function findCaptured(dir: string, messageId: string): Promise<CapturedEntry | null> {
  return ID.test(messageId) ? readEntry(dir, messageId) : null;
}

/** The raw message, or null for an unknown or malformed id. */
export async function readCaptured(dir: string, messageId: string): Promise<Buffer | null> {
  if (!ID.test(messageId)) return null;
  try {
    return await fs.readFile(path.join(dir, `${messageId}.eml`));
  } catch {
    return null;
  }
}

/** Removes the files of one message: its index entry first, so it leaves the list at once. */
async function removeMessage(dir: string, messageId: string): Promise<boolean> {
  let removed = false;
  for (const name of [`${messageId}.json`, `${messageId}.eml`]) {
    try {
      await fs.unlink(path.join(dir, name));
      removed = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return removed;
}

/** Deletes one message; false when there was none with this id. */
export async function deleteCaptured(dir: string, messageId: string): Promise<boolean> {
  if (!ID.test(messageId)) return false;
  const removed = await removeMessage(dir, messageId);
  if (removed) notify(dir, { kind: 'deleted', messageIds: [messageId] });
  return removed;
}

/**
 * Removes the temporary files a write left behind (a crash between write and rename): those no
 * call in this process is writing and that no other process (a separate `mailsvc worker` on the
 * same data directory) has touched for STALE_TEMP_MS.
 */
async function removeStaleTemps(dir: string, names: string[], nowMs: number): Promise<void> {
  for (const name of names) {
    if (!TEMP.test(name)) continue;
    const file = path.resolve(dir, name);
    if (writing.has(file)) continue;
    try {
      if (nowMs - (await fs.stat(file)).mtimeMs >= STALE_TEMP_MS) await fs.unlink(file);
    } catch (err) {
      // Renamed into place, or removed, since the directory was read.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * Deletes the messages whose index entry `matches` (an entry that is not whole matches nothing and
 * stays); answers how many. Every entry is read: a filter may match the oldest message.
 */
export async function deleteMatchingCaptured(
  dir: string,
  matches: (entry: CapturedEntry) => boolean,
): Promise<number> {
  const deleted: string[] = [];
  for await (const entry of readCapturedEntries(dir, await capturedIds(dir))) {
    if (matches(entry) && (await removeMessage(dir, entry.messageId))) deleted.push(entry.messageId);
  }
  if (deleted.length > 0) notify(dir, { kind: 'deleted', messageIds: deleted });
  return deleted.length;
}

/** Deletes every message of the inbox, and stale temporary files; answers how many messages there were. */
export async function deleteAllCaptured(dir: string): Promise<number> {
  const names = await namesIn(dir);
  const ids = new Set(names.map((n) => n.replace(/\.(eml|json)$/, '')).filter((id) => ID.test(id)));
  const deleted: string[] = [];
  for (const id of ids) if (await removeMessage(dir, id)) deleted.push(id);
  await removeStaleTemps(dir, names, Date.now());
  if (deleted.length > 0) notify(dir, { kind: 'deleted', messageIds: deleted });
  return deleted.length;
}
