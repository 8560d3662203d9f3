// The second bounce set (second-set/, README.md): 183 messages written by a second engineer
// without reading the first corpus, from memory of how about 40 mail systems lay out and word
// their bounces, delay warnings and automatic replies, each with its expected reading. Every
// recipient the set expects must be read (failed, hard or not hard as expected; a finding
// without a recipient stands for the message's only one, as apply-report.ts applies it); delay
// warnings and automatic replies must give no failure. Samples marked ambiguous are reported by
// the test's title but not asserted.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseReport } from '../parse-report.js';

interface Entry {
  file: string;
  system: string;
  category: 'hard' | 'soft' | 'mixed' | 'delay' | 'autoreply';
  expect: { recipient: string; hard: boolean }[];
  ambiguous?: string;
}

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'second-set');
const entries = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Entry[];

describe('the second bounce set', () => {
  it('lists every sample in the folder', () => {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.eml'));
    expect(entries.map((e) => e.file).sort()).toEqual(files.sort());
  });

  it.each(entries.filter((e) => !e.ambiguous))('$file ($system, $category)', (entry) => {
    const report = parseReport(fs.readFileSync(path.join(dir, entry.file)));
    const failed = report.items.filter((i) => i.kind === 'failed');
    if (entry.expect.length === 0) {
      expect(failed).toEqual([]);
      return;
    }
    for (const want of entry.expect) {
      const item =
        failed.find((i) => i.recipient === want.recipient) ??
        (failed.length === 1 && !failed[0]!.recipient ? failed[0] : undefined);
      expect(item, `${want.recipient} in ${JSON.stringify(report.items)}`).toBeDefined();
      expect(item!.hard, `${want.recipient}: ${item!.reason} ${item!.diagnostic}`).toBe(want.hard);
    }
  });
});
