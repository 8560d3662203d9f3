// The runner's own rules, on an in-memory queue: outcomes recorded with the next claim (kept
// through an outage, one the database refuses let go without holding the others).
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type Lease, type LeasedQueue, LeasedQueueRunner } from './leased-queue-runner.js';

interface Item {
  id: string;
  claimToken: string;
}

function memoryQueue(ids: string[]) {
  const due = [...ids];
  const recorded: string[] = [];
  const take = (lease: Lease): Item[] =>
    due.splice(0, lease.limit).map((id) => ({ id, claimToken: lease.claimToken }));
  let refuse: (outcome: string) => Error | undefined = () => undefined;
  const queue: LeasedQueue<Item, string> = {
    claim: async (lease) => take(lease),
    extendLeases: async () => {},
    work: async (item) => `done ${item.id}`,
    claimRecording: async (lease, outcomes) => {
      for (const o of outcomes) {
        const err = refuse(o);
        if (err) throw err; // the statement fails: nothing of this call is recorded
      }
      recorded.push(...outcomes);
      return take(lease);
    },
  };
  return {
    due,
    recorded,
    queue,
    refuseWith(f: (outcome: string) => Error | undefined) {
      refuse = f;
    },
  };
}

const deps = { clock: { now: () => new Date() }, log: pino({ level: 'silent' }) } as never;
const runnerOf = (queue: LeasedQueue<Item, string>, concurrency = 4) =>
  new LeasedQueueRunner<Item, string>(deps, queue, {
    concurrency,
    leaseMs: 60_000,
    pollMs: 60_000,
    name: 'test',
  });

describe('the leased-queue runner', () => {
  it('records each outcome with its next claim', async () => {
    const q = memoryQueue(['a', 'b']);
    const runner = runnerOf(q.queue);
    expect(await runner.runOnce()).toBe(2);
    expect(q.recorded).toEqual(['done a', 'done b']);
  });

  it('keeps outcomes through an outage and records them with the next call', async () => {
    const q = memoryQueue(['a', 'b']);
    let outage = true;
    q.refuseWith(() =>
      outage ? Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) : undefined,
    );
    const runner = runnerOf(q.queue);
    await expect(runner.runOnce()).rejects.toThrow('ECONNREFUSED');
    expect(q.recorded).toEqual([]);
    outage = false;
    q.due.push('c');
    expect(await runner.runOnce()).toBe(1);
    expect(q.recorded).toEqual(['done a', 'done b', 'done c']);
  });

  it('lets go of an outcome the database refuses, records the others alone, and claims on', async () => {
    const q = memoryQueue(['bad', 'ok']);
    q.refuseWith((o) => (o === 'done bad' ? new Error('invalid input syntax for type json') : undefined));
    const runner = runnerOf(q.queue);
    await expect(runner.runOnce()).rejects.toThrow('invalid input syntax');
    expect(q.recorded).toEqual(['done ok']);
    q.due.push('next');
    expect(await runner.runOnce()).toBe(1);
    expect(q.recorded).toEqual(['done ok', 'done next']);
  });
});
