// npm run size -w @mailsvc/client: the client's size as an app bundles it (everything, esbuild,
// minified), raw and gzipped. Run after npm run build.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const result = await build({
  entryPoints: [new URL('../dist/index.js', import.meta.url).pathname],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'neutral',
  write: false,
});
const code = result.outputFiles[0].contents;
const kb = (n) => `${(n / 1024).toFixed(1)} KiB (${n} bytes)`;
console.log(`minified ${kb(code.length)}, gzipped ${kb(gzipSync(code, { level: 9 }).length)}`);
