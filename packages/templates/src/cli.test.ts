import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTemplatesCommand } from './cli.js';

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runTemplatesCommand(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('mailsvc templates', () => {
  it('list --json prints one object with 52 templates', async () => {
    const r = await run(['list', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).templates).toHaveLength(52);
  });

  it('show prints fields, required and the JSON Schema', async () => {
    const r = await run(['show', 'login-code', '--json']);
    const out = JSON.parse(r.stdout);
    expect(out.required).toEqual(['code']);
    expect(out.jsonSchema.additionalProperties).toBe(false);
  });

  it('render writes the html, text and subject files', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpl-'));
    fs.writeFileSync(path.join(dir, 'data.json'), JSON.stringify({ code: '424242' }));
    const r = await run([
      'render',
      'login-code',
      '--data',
      path.join(dir, 'data.json'),
      '--out',
      path.join(dir, 'out'),
    ]);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'out', 'login-code.txt'), 'utf8')).toContain('424242');
    expect(fs.readFileSync(path.join(dir, 'out', 'login-code.html'), 'utf8')).toContain('424242');
    expect(fs.readFileSync(path.join(dir, 'out', 'subject.txt'), 'utf8')).toBe('Your login code\n');
    fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ code: '' }));
    const bad = await run(['render', 'login-code', '--data', path.join(dir, 'bad.json'), '--out', dir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('/code');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('exits 2 with one line for bad arguments', async () => {
    for (const args of [[], ['frob'], ['show'], ['render', 'login-code'], ['list', '--nope']]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.split('\n')).toHaveLength(1);
    }
  });

  it('prints the usage on stdout and exits 0 for --help and -h, alone or after a subcommand', async () => {
    for (const args of [['--help'], ['-h'], ['help'], ['list', '--help'], ['render', '-h']]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.stdout, args.join(' ')).toContain('Usage: mailsvc templates');
      expect(r.stdout, args.join(' ')).toContain('render ID [--version V] --data FILE --out DIR');
    }
  });

  it('exits 1 for an unknown template', async () => {
    expect((await run(['show', 'nope'])).code).toBe(1);
  });
});
