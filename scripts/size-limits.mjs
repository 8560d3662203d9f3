// The size limits of STYLE.md §Layout, checked: no source file under packages/*/src over 400
// lines (generated files aside) and no function over 80 lines (test files aside: a describe
// block is a list of cases, not a function a reader must hold in mind). Prints each breach and
// exits 1 when there is one. Run by test/architecture-map.test.ts and by hand:
//   node scripts/size-limits.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 80;

const isGenerated = (path) => path.includes('/generated/');
const isTest = (path) => /\.test\.tsx?$/.test(path);

export function sizeBreaches(root = process.cwd()) {
  const files = execFileSync(
    'git',
    [
      'ls-files',
      'packages/*/src/**.ts',
      'packages/*/src/*.ts',
      'packages/*/src/**.tsx',
      'packages/*/src/**.css',
    ],
    { cwd: root, encoding: 'utf8' },
  )
    .split('\n')
    .filter((f) => /\.(tsx?|css)$/.test(f) && !f.endsWith('.d.ts'));
  const breaches = [];
  for (const path of new Set(files)) {
    if (isGenerated(path)) continue;
    let text;
    try {
      text = readFileSync(`${root}/${path}`, 'utf8');
    } catch {
      continue; // staged for deletion
    }
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) breaches.push(`${path}: ${lines} lines (file limit ${MAX_FILE_LINES})`);
    if (isTest(path) || path.endsWith('.css')) continue;
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.end).line;
        const length = end - start + 1;
        if (length > MAX_FUNCTION_LINES) {
          const name = node.name?.getText(source) ?? '(anonymous)';
          breaches.push(
            `${path}:${start + 1}: function ${name} ${length} lines (limit ${MAX_FUNCTION_LINES})`,
          );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return breaches;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const breaches = sizeBreaches();
  for (const b of breaches) console.log(b);
  process.exit(breaches.length ? 1 : 0);
}
