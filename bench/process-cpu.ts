// CPU time of the benches' processes, read from /proc (Linux): a process with all its threads, its
// main thread (the event loop) alone, its threads by order of creation, and PostgreSQL's backends
// serving a database; and a child's exit, awaited.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type pg from 'pg';

const TICKS_PER_SECOND = 100; // Linux USER_HZ: /proc/PID/stat counts CPU time in these

/** CPU seconds (user + system) from a /proc stat file; 0 once the process is gone. */
function statCpu(file: string): number {
  let stat: string;
  try {
    stat = fs.readFileSync(file, 'utf8');
  } catch {
    return 0;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds of a process, all its threads. */
export const cpuSeconds = (pid: number) => statCpu(`/proc/${pid}/stat`);

/** CPU seconds of a process's main thread (the event loop) alone. */
export const mainThreadCpuSeconds = (pid: number) => statCpu(`/proc/${pid}/task/${pid}/stat`);

/**
 * CPU seconds of a process's threads, by their order of creation (every thread of Node 20 is
 * named "node"): the main thread, then V8's platform workers (GC helpers, the optimising
 * compiler), then the ones made later (libuv's pool on its first use: RSA signing).
 */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const [i, tid] of tasks.sort((a, b) => Number(a) - Number(b)).entries()) {
    const file = `/proc/${pid}/task/${tid}/stat`;
    if (!fs.existsSync(file)) continue;
    const name = i === 0 ? 'main' : `#${i}`;
    byName.set(name, (byName.get(name) ?? 0) + statCpu(file));
  }
  return byName;
}

/** CPU seconds of PostgreSQL's backends now serving the pool's database, by pid (0 for one not on this host). */
export async function backendCpu(pool: pg.Pool): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
  );
  return new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid)]));
}

/** The child's exit code, once it has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((r) => child.once('exit', (code) => r(code)));
}
