// How a dev page shows a message's HTML (the gallery's preview, the dev inbox's HTML tab): in a
// frame sandboxed to open popups only, whose document opens its links in a new tab. Inside the
// frame a link without a target would navigate the frame itself, which the pages' CSP (inherited
// by the frame) refuses: the link would look dead.

/**
 * The frame's `sandbox`: its links may open in a new tab, as a normal page. Never allow-scripts
 * or allow-same-origin: together they would let the message undo the sandbox.
 */
export const FRAME_SANDBOX = 'allow-popups allow-popups-to-escape-sandbox';

/** The message's HTML for the frame's srcdoc: links open in a new tab and send no referrer. */
export function frameDocument(html: string): string {
  const inject = '<base target="_blank"><meta name="referrer" content="no-referrer">';
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head)
    return html.slice(0, head.index + head[0].length) + inject + html.slice(head.index + head[0].length);
  const root = /<html(\s[^>]*)?>/i.exec(html);
  if (root)
    return `${html.slice(0, root.index + root[0].length)}<head>${inject}</head>${html.slice(root.index + root[0].length)}`;
  return inject + html;
}
