// Every file path that ARCHITECTURE.md, a README, docs/ or a comment in the code names exists (what
// Fastify's errors.test.js does for its error docs, for paths). A path may be written from the
// repository root, from packages/, from a package or its src/, or from the naming file's folder.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PACKAGES = fs.readdirSync(path.join(ROOT, 'packages')).map((p) => path.join(ROOT, 'packages', p));

/** A path with at least one folder and a file extension; not a URL, a glob or a placeholder. */
const PATH =
  /(?<![\w@:/.-])((?:\.{1,2}\/)?(?:[\w.-]+\/)+[\w.-]+\.(?:ts|mts|mjs|cjs|js|sql|json|md|yaml|yml|eml|pem|sh))(?![\w/-])/g;

function filesUnder(dir: string, keep: (file: string) => boolean, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', '.git', 'generated', 'fixtures', 'fixtures-ses'].includes(entry.name))
      continue;
    // The wrapper's Firebase build output, not the database's rule functions (db/functions/*.sql).
    if (entry.name === 'functions' && dir.endsWith(`${path.sep}wrapper`)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(full, keep, out);
    else if (keep(full)) out.push(full);
  }
  return out;
}

/** The documents and code that name paths. */
function namingFiles(): string[] {
  const docs = [
    path.join(ROOT, 'README.md'),
    path.join(ROOT, 'ARCHITECTURE.md'),
    path.join(ROOT, 'CONTRIBUTING.md'),
    ...fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join(ROOT, 'docs', f)),
    ...PACKAGES.map((p) => path.join(p, 'README.md')).filter((f) => fs.existsSync(f)),
    path.join(ROOT, 'bench/RESULTS.md'),
  ];
  const code = [
    ...PACKAGES.flatMap((p) => filesUnder(p, (f) => /\.(ts|mjs|js|sql)$/.test(f) && !f.endsWith('.d.ts'))),
    ...filesUnder(path.join(ROOT, 'bench'), (f) => /\.(ts|mjs)$/.test(f)),
    ...filesUnder(path.join(ROOT, 'scripts'), (f) => /\.(mjs|ts)$/.test(f)),
    path.join(ROOT, '.ci/run'),
  ];
  return [...docs, ...code];
}

/** The text in which paths count: a document whole, the comments of code. */
function namingText(file: string): string {
  const text = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.md')) return text;
  if (file.endsWith('.sql')) return [...text.matchAll(/--(.*)$/gm)].map((m) => m[1]).join('\n');
  if (file.endsWith('/run')) return [...text.matchAll(/#(.*)$/gm)].map((m) => m[1]).join('\n');
  return [...text.matchAll(/\/\/(.*)$|\/\*([\s\S]*?)\*\//gm)].map((m) => m[1] ?? m[2]).join('\n');
}

/** The files a fresh clone has (git's index), so an ignored local file cannot hide a stale path. */
const TRACKED: Set<string> | null = (() => {
  try {
    const out = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
    return new Set(
      out
        .split('\0')
        .filter(Boolean)
        .map((f) => path.join(ROOT, f)),
    );
  } catch {
    return null; // not a git checkout (an unpacked tarball): the file system is the tree
  }
})();

function exists(named: string, from: string): boolean {
  const bases = [
    path.dirname(from),
    ROOT,
    path.join(ROOT, 'packages'),
    ...PACKAGES,
    ...PACKAGES.map((p) => path.join(p, 'src')),
  ];
  return bases.some((base) => {
    const full = path.resolve(base, named);
    return TRACKED ? TRACKED.has(full) : fs.existsSync(full);
  });
}

/** Build outputs (git-ignored, made by a build step): a fresh clone has none of them. */
const isBuildOutput = (named: string) => /^(?:\.\/)?(?:dist|functions)\//.test(named);

/** Paths of a user's own files in examples, not of this repository. */
const EXAMPLES = new Set(['e2e/sign-up.spec.ts', './some-report.eml']);

/** The first segment is a host name (a URL written without its scheme), not a folder. */
const isUrlLike = (named: string) => {
  const first = named.split('/')[0]!;
  return first === 'localhost' || /^[\w-]+(\.[\w-]+)+\.?$/.test(first);
};

export function missingPaths(): string[] {
  const missing: string[] = [];
  for (const file of namingFiles()) {
    for (const m of namingText(file).matchAll(PATH)) {
      const named = m[1]!;
      if (named.includes('node_modules/') || EXAMPLES.has(named) || isUrlLike(named) || isBuildOutput(named))
        continue;
      if (!exists(named, file)) missing.push(`${path.relative(ROOT, file)} names ${named}`);
    }
  }
  return [...new Set(missing)];
}

/** Import specifiers of the TypeScript files under `dir` (git's index: what a fresh clone has). */
function importsUnder(dir: string): { file: string; spec: string }[] {
  const files = execFileSync('git', ['ls-files', '--', `${dir}/*.ts`], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  return files.flatMap((file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    return [...text.matchAll(/^(?:import|export)\s(?:[^'"]*?from\s+)?'([^']+)'/gm)].map((m) => ({
      file,
      spec: m[1]!,
    }));
  });
}

describe('the architecture map', () => {
  it('names only paths that exist (ARCHITECTURE.md, the READMEs, docs/, comments in the code)', () => {
    expect(missingPaths()).toEqual([]);
  });

  it('keeps product source files to 400 lines and functions to 80 (scripts/size-limits.mjs)', () => {
    const run = spawnSync(process.execPath, ['scripts/size-limits.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stdout.trim().split('\n').filter(Boolean)).toEqual([]);
    expect(run.status).toBe(0);
  });

  it('keeps the database layer free of the domain: no import from db/ into domain/', () => {
    const upward = importsUnder('packages/server/src/db').filter((i) => /(^|\/)domain\//.test(i.spec));
    expect(upward).toEqual([]);
  });

  it("lets no package import another package's test files (shared helpers live in packages/testkit)", () => {
    const crossing = [
      'packages/client',
      'packages/wrapper',
      'packages/templates',
      'packages/contract',
      'bench',
    ]
      .flatMap(importsUnder)
      .filter((i) => /\/(server|client|wrapper|templates|contract)\/test\//.test(i.spec));
    expect(crossing).toEqual([]);
  });
});
