// The client IP the per-IP limit counts. The first X-Forwarded-For entries are whatever the client
// sent; the last one is appended by the nearest proxy (Google's front end on Firebase/Cloud Run,
// your own proxy standalone), so only that one cannot be chosen by the caller.
export function lastForwardedFor(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const last = (Array.isArray(header) ? header.join(',') : header).split(',').at(-1)?.trim();
  return last || undefined;
}
