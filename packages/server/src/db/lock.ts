// PGlite lets two processes open one data directory and then silently loses rows, so the
// embedded database is guarded by an exclusive lock file. The file also tells a second
// process (the admin CLI) where the running server answers.
import fs from 'node:fs';
import path from 'node:path';

export interface LockInfo {
  pid: number;
  command: string;
  startedAt: string;
  /** Set once the HTTP API listens: the admin CLI forwards commands here. */
  adminUrl?: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockInfo,
  ) {
    super(
      `The data directory ${dataDir} is in use by another mailsvc process (pid ${holder.pid}, \`mailsvc ${holder.command}\`, since ${holder.startedAt}). ` +
        'The embedded database allows one process at a time: stop that process, use another MAILSVC_DATA_DIR, or set DATABASE_URL to use PostgreSQL.',
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  update(fields: Partial<LockInfo>): void;
  release(): void;
}

const LOCK_FILE = 'mailsvc.lock';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLockFile(file: string): LockInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

/** The live holder of the data directory, or null when it is free (or the lock is stale). */
export function readDataDirLock(dataDir: string): LockInfo | null {
  const info = readLockFile(path.join(dataDir, LOCK_FILE));
  return info && isAlive(info.pid) && info.pid !== process.pid ? info : null;
}

export function acquireDataDirLock(dataDir: string, command: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCK_FILE);
  let info: LockInfo = { pid: process.pid, command, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      // 'wx' is O_CREAT|O_EXCL: exactly one process can create the file.
      fs.writeFileSync(file, JSON.stringify(info), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
        const holder = readLockFile(file);
        if (holder) throw new DataDirLockedError(dataDir, holder);
        throw err;
      }
      const holder = readLockFile(file);
      if (holder && isAlive(holder.pid)) throw new DataDirLockedError(dataDir, holder);
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    if (readLockFile(file)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
  process.on('exit', release);
  return {
    path: file,
    update(fields) {
      info = { ...info, ...fields };
      fs.writeFileSync(file, JSON.stringify(info), { mode: 0o600 });
    },
    release,
  };
}
