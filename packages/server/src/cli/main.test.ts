import { describe, expect, it } from 'vitest';
import { adminCommands } from '../domain/admin/index.js';
import { USAGE } from './main.js';

describe('mailsvc --help', () => {
  it('names every group of admin commands', () => {
    const listed = /admin <group> <action> \[--json\]\n([\s\S]*?)\(mailsvc admin --help/
      .exec(USAGE)![1]!
      .split(/[\s,]+/)
      .filter(Boolean)
      .sort();
    const groups = [...new Set(Object.keys(adminCommands).map((name) => name.split('.')[0]!))].sort();
    expect(listed).toEqual(groups);
  });
});
