// MAILSVC_ALLOWED_LINK_HOSTS: the links a caller puts into template data must point where the
// operator says. Without it, a page that may send /auth/password-reset can put its own link in an
// email that carries your brand. The template schema has already accepted each link as an http(s)
// URL without userinfo; this narrows it to https on the listed hosts.
import type { TemplateVersion } from '@mailsvc/templates';
import type { ErrorDetail } from './errors.js';

const MESSAGE = 'must be an https link to a host listed in MAILSVC_ALLOWED_LINK_HOSTS';

/** Every link field of the version (url fields, the url of an action button) with its value. */
function* linksOf(version: TemplateVersion, data: Record<string, unknown>) {
  for (const field of version.fields) {
    if (field.kind === 'url') {
      yield { path: `/data/${field.name}`, value: data[field.name] };
    } else if (field.kind === 'actionButton') {
      const button = data[field.name];
      if (button !== null && typeof button === 'object')
        yield { path: `/data/${field.name}/url`, value: (button as Record<string, unknown>).url };
    }
  }
}

/**
 * The links of `data` (already valid for `version`) that are not https on one of `allowedHosts`,
 * each at its path. No hosts listed: nothing to check.
 */
export function linkProblems(
  version: TemplateVersion,
  data: Record<string, unknown>,
  allowedHosts: readonly string[],
): ErrorDetail[] {
  if (allowedHosts.length === 0) return [];
  const problems: ErrorDetail[] = [];
  for (const { path, value } of linksOf(version, data)) {
    if (value === undefined) continue;
    let url: URL | undefined;
    try {
      url = new URL(String(value));
    } catch {}
    // hostname, not host: the port does not matter, the machine does.
    if (url?.protocol !== 'https:' || !allowedHosts.includes(url.hostname))
      problems.push({ path, message: MESSAGE });
  }
  return problems;
}
