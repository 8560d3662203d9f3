// The embedded default transport (no MAILSVC_SMTP_URL): each message is written to
// MAILSVC_DATA_DIR/inbox as <messageId>.eml plus a small JSON index entry, and shown at /dev/inbox.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DeliveryOutcome, OutgoingMessage, Transport } from './transport.js';

export interface CapturedEntry {
  messageId: string;
  capturedAt: string;
  to: string;
  templateId: string;
  subject: string;
}

const ID = /^msg_[0-9A-Z]{26}$/;

export function inboxDir(dataDir: string): string {
  return path.join(dataDir, 'inbox');
}

export function captureTransport(dir: string, now: () => Date = () => new Date()): Transport {
  let made = false;
  return {
    name: 'capture',
    async send(message: OutgoingMessage): Promise<DeliveryOutcome> {
      if (!made) {
        await fs.mkdir(dir, { recursive: true, mode: 0o700 });
        made = true;
      }
      // A local delivery agent records the envelope sender as Return-Path; so does this one.
      const raw = Buffer.concat([Buffer.from(`Return-Path: <${message.envelope.from}>\r\n`), message.raw]);
      const entry: CapturedEntry = {
        messageId: message.messageId,
        capturedAt: now().toISOString(),
        to: message.envelope.to,
        templateId: message.meta.templateId,
        subject: message.meta.subject,
      };
      // A retry of the same message overwrites its file: one entry per message.
      await fs.writeFile(path.join(dir, `${message.messageId}.eml`), raw, { mode: 0o600 });
      await fs.writeFile(path.join(dir, `${message.messageId}.json`), JSON.stringify(entry), { mode: 0o600 });
      return { kind: 'sent', response: `250 captured ${message.messageId}` };
    },
    async close() {},
  };
}

/** Newest first. */
export async function listCaptured(dir: string, limit = 200): Promise<CapturedEntry[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const ids = names
    .filter((n) => n.endsWith('.json') && ID.test(n.slice(0, -5)))
    .map((n) => n.slice(0, -5))
    .sort()
    .reverse()
    .slice(0, limit);
  const entries = await Promise.all(
    ids.map(async (id) => {
      try {
        return JSON.parse(await fs.readFile(path.join(dir, `${id}.json`), 'utf8')) as CapturedEntry;
      } catch {
        return null;
      }
    }),
  );
  return entries.filter((e): e is CapturedEntry => e !== null);
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
