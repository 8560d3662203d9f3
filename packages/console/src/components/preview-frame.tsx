// A rendered email in a frame: the server's preview document (its own policy lets the mail's
// inline styles apply and nothing run), sandboxed so that it cannot script or reach the console,
// its links opening in a new tab. Light or dark as the person's system.
const SANDBOX = 'allow-popups allow-popups-to-escape-sandbox';

export function PreviewFrame({ src, title }: { src: string; title: string }) {
  const dark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  const url = `${src}${src.includes('?') ? '&' : '?'}scheme=${dark ? 'dark' : 'light'}`;
  return (
    <iframe class="preview-frame" src={url} title={title} sandbox={SANDBOX} referrerpolicy="no-referrer" />
  );
}
