// When each API key was last used (DESIGN.md §12): written at most once a minute per key and
// process, after the answer's work and never awaited by it, so the accept path pays nothing but a
// map lookup. A write that fails is dropped (the next minute's use writes again).
import { setKeyLastUsed } from '../../db/repositories/api-keys.js';
import type { Db } from '../../db/schema.js';

export const LAST_USED_RESOLUTION_MS = 60_000;

export class KeyUsage {
  private readonly written = new Map<string, number>();
  private pending = new Set<Promise<unknown>>();
  constructor(
    private readonly db: Db,
    private readonly maxEntries = 10_000,
  ) {}

  /** Notes a use of the key at `now`; writes it when the last write here is a minute old. */
  touch(keyId: string, now: Date): void {
    const last = this.written.get(keyId);
    if (last !== undefined && now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    if (this.written.size >= this.maxEntries) this.written.clear();
    this.written.set(keyId, now.getTime());
    const write: Promise<unknown> = setKeyLastUsed(this.db, keyId, now, LAST_USED_RESOLUTION_MS)
      .catch(() => {})
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Resolves once the writes begun so far are done (tests, and a clean stop). */
  async flushed(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
