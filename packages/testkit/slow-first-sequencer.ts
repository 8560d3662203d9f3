// The order test files start in, across the three projects: the longest first, so that on two
// workers the last file to finish is a short one. Vitest's own order runs the projects one after
// another and, without the timings of an earlier run (a fresh clone, CI), the larger files first:
// cli.test.ts (2–3 minutes of processes) then started last and ran alone at the end.
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/** Known slow files, slowest first (seconds on a loaded 2-core machine, PGlite pass). */
const SLOW = [
  'packages/server/test/cli.test.ts', // 150
  'packages/server/test/hostile.test.ts', // 40
  'packages/client/test/pack.test.ts', // 39
  'packages/server/test/contacts-import.test.ts', // 33
  'packages/server/test/data-dir.test.ts', // 33
  'packages/server/test/cli-usage.test.ts', // 30
  'packages/wrapper/test/server.test.ts', // 21
  'packages/server/test/http-edge.test.ts', // 16
  'packages/server/test/delivery.test.ts', // 14
  'packages/wrapper/test/hostile.test.ts', // 12
];

const rank = (spec: TestSpecification) => {
  const i = SLOW.findIndex((f) => spec.moduleId.endsWith(f));
  return i === -1 ? SLOW.length : i;
};

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Vitest's order (earlier failures first, then by recorded duration) within each rank; the
    // sort is stable, so the known slow files lead whatever project they are in.
    const sorted = await super.sort(files);
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
