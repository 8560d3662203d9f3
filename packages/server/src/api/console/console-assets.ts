// The console's page, script and style, served by the API process at /console (DESIGN.md §14).
// The script is packages/console/src bundled by esbuild on the first request of a process (no
// build step to forget; ~0.3 s once), kept in memory with an ETag. Every page answers the same
// shell; the script routes by path.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../errors.js';

/**
 * Scripts and styles only from this origin, none inline; the page calls this origin only; nothing
 * may frame it; forms post only here.
 */
export const CONSOLE_PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
} as const;

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<title>mailsvc console</title>
<link rel="stylesheet" href="/console/assets/app.css">
<script type="module" src="/console/assets/app.js"></script>
</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`;

interface Asset {
  body: string;
  etag: string;
  type: string;
}

const consoleDir = () =>
  path.dirname(createRequire(import.meta.url).resolve('@mailsvc/console/package.json'));
const asset = (body: string, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

/** The console's script, bundled and minified (packages/console/src/main.tsx). */
export async function buildConsoleScript(): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(consoleDir(), 'src/main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** packages/console/src/styles/*.css, in the order of their names, as one stylesheet. */
async function readConsoleStyles(): Promise<string> {
  const dir = path.join(consoleDir(), 'src/styles');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.css')).sort();
  return (await Promise.all(names.map((n) => readFile(path.join(dir, n), 'utf8')))).join('\n');
}

function sendAsset(req: FastifyRequest, reply: FastifyReply, a: Asset) {
  reply.headers({ 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff', etag: a.etag });
  if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
  return reply.type(a.type).send(a.body);
}

export function consoleAssetRoutes(app: FastifyInstance): void {
  let script: Promise<Asset> | undefined;
  let style: Promise<Asset> | undefined;
  app.get('/console/assets/app.js', async (req, reply) => {
    script ??= buildConsoleScript().then((s) => asset(s, 'text/javascript; charset=utf-8'));
    script.catch(() => {
      script = undefined;
    });
    return sendAsset(req, reply, await script);
  });
  app.get('/console/assets/app.css', async (req, reply) => {
    style ??= readConsoleStyles().then((s) => asset(s, 'text/css; charset=utf-8'));
    style.catch(() => {
      style = undefined;
    });
    return sendAsset(req, reply, await style);
  });
  const page = async (req: FastifyRequest, reply: FastifyReply) => {
    const url = req.url.split('?')[0]!;
    if (
      url.startsWith('/console/api/') ||
      url.startsWith('/console/assets/') ||
      url.startsWith('/console/preview/')
    )
      return sendError(reply, 'not_found', `No route ${req.method} ${url.slice(0, 200)}.`);
    return reply.code(200).headers(CONSOLE_PAGE_HEADERS).type('text/html; charset=utf-8').send(SHELL);
  };
  app.get('/console', page);
  app.get('/console/*', page);
}
