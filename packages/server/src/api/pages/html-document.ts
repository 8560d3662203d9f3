import { escapeHtml } from '@mailsvc/templates';

/** A complete, self-contained HTML document: no scripts, no external resources. */
export function htmlDocument(opts: { title: string; style: string; body: string; head?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(opts.title)}</title>
${opts.head ?? ''}<style>${opts.style}</style>
</head>
<body>
${opts.body}
</body>
</html>
`;
}
