// A template or a message as its recipient sees it, for the console's frames: the catalogue's
// example (GET /console/preview/template/:id) or a message's stored data while it is held (GET
// /console/preview/message/:id), rendered with the environment's project brand. Served to a signed-
// in member whose membership reaches the environment, as a document of its own with a policy that
// lets mail's inline styles apply and nothing run; the console frames it sandboxed.

import { roleAtLeast } from '@mailsvc/contract/roles';
import { frameDocument, getFixture, getTemplate, renderGalleryPreview } from '@mailsvc/templates';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findGalleryProjects, renderContextOf } from '../../db/repositories/gallery.js';
import { membershipsOf } from '../../domain/console/session.js';
import type { Deps } from '../../domain/deps.js';
import { ApiError } from '../../errors.js';
import { CONSOLE_ID_PATTERN, sessionOf } from './console-access.js';

const PREVIEW_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'",
} as const;

const ID = new RegExp(CONSOLE_ID_PATTERN);
const TEMPLATE_ID = /^[a-z0-9-]{1,64}$/;

interface PreviewQuery {
  environmentId?: string;
  version?: string;
  scheme?: string;
}

/** The environment named in the query, if the session's memberships reach it; 404 otherwise. */
async function environmentOf(deps: Deps, req: FastifyRequest) {
  const session = await sessionOf(deps, req);
  const environmentId = (req.query as PreviewQuery).environmentId;
  if (typeof environmentId === 'string' && ID.test(environmentId)) {
    for (const m of await membershipsOf(deps, session.email))
      for (const p of m.projects)
        for (const e of p.environments)
          if (e.id === environmentId) return { projectId: p.id, environment: e, role: m.role };
  }
  throw new ApiError('environment_not_found', 'No environment with this id among your teams’ projects.');
}

async function contextOf(deps: Deps, projectId: string, environmentName: string, unsubscribe: string | null) {
  const [project] = await findGalleryProjects(deps.db, { preferredEnvironment: environmentName, projectId });
  if (!project) throw new ApiError('project_not_found', 'The environment’s project no longer exists.');
  return { ...renderContextOf(project, environmentName), unsubscribeUrl: unsubscribe };
}

const sendPage = (reply: FastifyReply, html: string) =>
  reply.code(200).headers(PREVIEW_HEADERS).type('text/html; charset=utf-8').send(frameDocument(html));

/** A one-sentence page in the frame where the message cannot be shown. */
const sendNotice = (reply: FastifyReply, text: string) =>
  sendPage(reply, `<!doctype html><html><body><p>${text}</p></body></html>`);

const scheme = (req: FastifyRequest) => ((req.query as PreviewQuery).scheme === 'dark' ? 'dark' : 'light');

export function consolePreviewRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/console/preview/template/:templateId', async (req, reply) => {
    const { templateId } = req.params as { templateId: string };
    const { projectId, environment } = await environmentOf(deps, req);
    if (!TEMPLATE_ID.test(templateId)) throw new ApiError('template_not_found', 'No template with this id.');
    const wanted = (req.query as PreviewQuery).version;
    let found: ReturnType<typeof getTemplate>;
    try {
      found = getTemplate(templateId, typeof wanted === 'string' ? wanted : undefined);
    } catch {
      throw new ApiError('template_not_found', 'No published template with this id and version.');
    }
    const context = await contextOf(
      deps,
      projectId,
      environment.name,
      `${deps.config.MAILSVC_PUBLIC_URL}/u/example`,
    );
    const out = renderGalleryPreview(found.version, getFixture(found.version), context, scheme(req));
    if (!out.ok) throw new Error(`the example of ${templateId} does not render`);
    return sendPage(reply, out.message.html);
  });

  app.get('/console/preview/message/:messageId', async (req, reply) => {
    const { messageId } = req.params as { messageId: string };
    const { projectId, environment, role } = await environmentOf(deps, req);
    // A message's data is more than /v1 shows anyone (messages/get answers its metadata): only a
    // member who could have sent it sees it rendered.
    if (!roleAtLeast(role, 'developer'))
      throw new ApiError(
        'insufficient_role',
        `Your role (${role}) does not show messages’ content; a developer, admin or owner sees it.`,
      );
    const message = ID.test(messageId)
      ? await deps.db
          .selectFrom('messages')
          .select(['template_id', 'template_version', 'data', 'category'])
          .where('id', '=', messageId)
          .where('environment_id', '=', environment.id)
          .executeTakeFirst()
      : undefined;
    if (!message) throw new ApiError('message_not_found', 'No message with this id in the environment.');
    if (message.data === null) {
      return sendNotice(
        reply,
        'This message’s template data is no longer held (it is kept until delivery ends and for the retention period after); only its metadata remains.',
      );
    }
    if (message.category === 'security')
      return sendNotice(
        reply,
        'Security messages (sign-in codes, reset and verification links) are not shown: whoever sees them could act as their recipient.',
      );
    let version: ReturnType<typeof getTemplate>['version'];
    try {
      version = getTemplate(message.template_id, message.template_version).version;
    } catch {
      return sendNotice(
        reply,
        'This message’s template version is no longer in the catalogue: it cannot be previewed.',
      );
    }
    const unsubscribe =
      message.category === 'notification' ? `${deps.config.MAILSVC_PUBLIC_URL}/u/preview` : null;
    const out = renderGalleryPreview(
      version,
      message.data,
      await contextOf(deps, projectId, environment.name, unsubscribe),
      scheme(req),
    );
    if (!out.ok)
      return sendNotice(reply, 'This message’s data no longer matches its template: it cannot be previewed.');
    return sendPage(reply, out.message.html);
  });
}
