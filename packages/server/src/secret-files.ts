// Secrets kept in the data directory, readable only by their owner (mode 0600).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';

/** A secret kept in the data directory (mode 0600), created on first use. */
export function readOrCreateSecretFile(dataDir: string, name: string, create: () => string): string {
  const file = path.join(dataDir, name);
  try {
    const value = fs.readFileSync(file, 'utf8').trim();
    if (value) return value;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const value = create();
  fs.writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

export function writeSecretFile(dataDir: string, name: string, value: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, name), `${value}\n`, { mode: 0o600 });
  fs.chmodSync(path.join(dataDir, name), 0o600);
}

export function readSecretFile(dataDir: string, name: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dataDir, name), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The admin token: MAILSVC_ADMIN_TOKEN, else (embedded mode only) a random one in the data directory. */
export function resolveAdminToken(config: Config): string | undefined {
  if (config.MAILSVC_ADMIN_TOKEN) return config.MAILSVC_ADMIN_TOKEN;
  if (config.DATABASE_URL) return undefined;
  return readOrCreateSecretFile(config.dataDir, 'admin-token', () =>
    crypto.randomBytes(32).toString('base64url'),
  );
}
