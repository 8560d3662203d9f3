// The CLI as compiled JavaScript: bin/mailsvc.js runs packages/server/src/cli/main.ts from a bundle
// that esbuild makes from the TypeScript sources (ours; every other package stays an import that
// Node resolves), instead of transpiling ~300 files through tsx's loader at every start. A worker
// process was ready after ~1.9 s through tsx and after ~0.9 s from the bundle (bench/RESULTS.md).
// Packages other than ours are resolved by Node from packages/server/dist, that is from
// packages/server/node_modules and the root's: a package installed only under another
// workspace package's node_modules would not be found (none is: npm hoists them).
//
// The bundle is a cache of the sources, never a second copy to keep in step: it is built when
// missing or stale (any source file added, removed or changed since), into a directory named after
// the sources' fingerprint, then renamed into place, so processes starting together never read a
// half-written one. Files the sources read beside themselves (SQL, scripts) are read from the
// sources: each file's import.meta.url is replaced by its own URL in the tree.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The workspace packages the CLI imports; their sources go into the bundle. */
const BUNDLED = ['server', 'contract', 'templates', 'wrapper'];
const DIST = path.join(PACKAGES, 'server/dist');

function listSources(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) listSources(p, out);
    else if (/\.(ts|js|mjs|json)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) out.push(p);
  }
  return out;
}

/** Names, sizes and modification times of every source file, the packages' manifests and this script. */
export function sourceFingerprint() {
  const hash = createHash('sha256');
  const files = [fileURLToPath(import.meta.url)];
  for (const pkg of BUNDLED) {
    files.push(path.join(PACKAGES, pkg, 'package.json'));
    listSources(path.join(PACKAGES, pkg, 'src'), files);
  }
  for (const f of files) {
    const st = fs.statSync(f);
    hash.update(`${f}\0${st.size}\0${st.mtimeMs}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The bundle's entry for these sources, or null when it has not been built. */
export function builtEntry(fingerprint = sourceFingerprint()) {
  const entry = path.join(DIST, `cli-${fingerprint}`, 'main.mjs');
  return fs.existsSync(entry) ? entry : null;
}

/** Replaces import.meta.url in our sources by the file's own URL in the tree. */
const sourceUrls = {
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /[\\/]packages[\\/][a-z]+[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: 'ts',
        resolveDir: path.dirname(args.path),
      };
    });
  },
};

/** Every package but ours stays an import (resolved by Node from packages/server, as from the sources). */
const externals = {
  name: 'externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@mailsvc/') ? undefined : { path: args.path, external: true },
    );
  },
};

/** Builds the bundle for the sources as they are now; returns its entry. */
export async function buildCli(fingerprint = sourceFingerprint()) {
  const esbuild = await import('esbuild');
  const final = path.join(DIST, `cli-${fingerprint}`);
  const temp = `${final}.${process.pid}.tmp`;
  fs.rmSync(temp, { recursive: true, force: true });
  try {
    await esbuild.build({
      entryPoints: { main: path.join(PACKAGES, 'server/src/cli/main.ts') },
      outdir: temp,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true, // commands and rarely used parts stay separate files, loaded when used
      platform: 'node',
      target: 'node20',
      format: 'esm',
      sourcemap: 'linked',
      // Bundled CommonJS (none of ours today) would call require() for Node built-ins.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      plugins: [sourceUrls, externals],
      legalComments: 'none',
      logLevel: 'silent',
    });
  } catch (err) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw err;
  } finally {
    // esbuild's service process would otherwise live as long as this one (the whole service).
    await esbuild.stop();
  }
  try {
    fs.renameSync(temp, final);
  } catch (err) {
    // Another process built the same sources at the same moment: its copy is as good.
    fs.rmSync(temp, { recursive: true, force: true });
    if (!fs.existsSync(path.join(final, 'main.mjs'))) throw err;
  }
  // Bundles of earlier sources, a day after they were built: a process started from one may
  // still be running. It loaded our chunks at its start (the only imports later are of other
  // packages); a later import of a chunk of ours would need this rule revisited. Best effort:
  // another process may be removing the same directories.
  for (const old of fs.readdirSync(DIST)) {
    const dir = path.join(DIST, old);
    try {
      const stat = fs.statSync(dir, { throwIfNoEntry: false });
      if (old.startsWith('cli-') && dir !== final && stat && Date.now() - stat.mtimeMs > 86_400_000)
        fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // not ours to remove, or gone already
    }
  }
  return path.join(final, 'main.mjs');
}

// `node packages/server/bin/build-cli.mjs`: build now (CI and images do it once, ahead of start).
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const t0 = performance.now();
  const entry = await buildCli();
  console.log(`built ${path.relative(process.cwd(), entry)} in ${Math.round(performance.now() - t0)} ms`);
}
