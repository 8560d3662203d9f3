// The gallery's pages: the index, a page per template, and their script.
import {
  galleryScript,
  renderGalleryIndexPage,
  renderGalleryNotFoundPage,
  renderTemplatePage,
} from '@mailsvc/templates';
import type { FastifyInstance } from 'fastify';
import type { GalleryProject } from '../../db/repositories/gallery.js';
import { defaultSendProject, listGalleryProjects } from '../../domain/send/send-from-gallery.js';
import { ApiError } from '../../errors.js';
import { type GallerySend, requireLoopbackHost, sendDevPage } from '../dev-access.js';
import { findVersion, type GalleryContext, one, PROJECT_ID } from './gallery-context.js';

const label = (p: GalleryProject) =>
  `${p.displayName ?? p.name} · ${p.tenantName}${p.brandColor ? ` · ${p.brandColor}` : ''}`;

/** Whether "Send to dev inbox" can send through a project, and the sentence that says how. */
function sendTarget(p: GalleryProject | undefined, lead: string) {
  if (!p) return { isPossible: false, note: 'No project can send: mailsvc start creates one.' };
  const name = p.displayName ?? p.name;
  if (!p.sendFrom)
    return {
      isPossible: false,
      note: `${name} has no environment with an API key: create a key to send through it.`,
    };
  return {
    isPossible: true,
    note: `${lead}sends through ${name}, environment ${p.sendFrom.environmentName}: POST /v1/send's checks and queue, then delivery (rendering, DKIM) to the dev inbox.`,
  };
}

/** GET /dev/templates (the index) and /dev/templates/app.js (the pages' script). */
export function galleryIndexRoutes(app: FastifyInstance) {
  app.get('/dev/templates', { onRequest: requireLoopbackHost }, async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const project = one(q.project);
    return sendDevPage(
      reply,
      200,
      renderGalleryIndexPage({
        q: one(q.q)?.slice(0, 200) ?? '',
        format: q.format === 'text' ? 'text' : 'html',
        ...(project && PROJECT_ID.test(project) && { project }),
      }),
    );
  });

  app.get('/dev/templates/app.js', { onRequest: requireLoopbackHost }, async (_req, reply) =>
    reply
      .headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
      .type('text/javascript; charset=utf-8')
      .send(galleryScript()),
  );
}

/** GET /dev/templates/:id: a template's page, with the projects it can be shown and sent as. */
export function templatePageRoute(app: FastifyInstance, gallery: GalleryContext, send: GallerySend) {
  app.get('/dev/templates/:id', { onRequest: requireLoopbackHost }, async (req, reply) => {
    const { id } = req.params as { id: string };
    const q = req.query as Record<string, unknown>;
    try {
      const { template, version } = findVersion(id, one(q.version));
      // `?project=` (the toolbar's example option) is no project; a repeated one is not one id.
      if (q.project !== undefined && typeof q.project !== 'string')
        throw new ApiError('project_not_found', 'Name one project with ?project=.');
      const projectId = one(q.project) || undefined;
      const listed = await listGalleryProjects(gallery.deps);
      const project =
        projectId === undefined
          ? undefined
          : (listed.find((p) => p.id === projectId) ?? (await gallery.projectOrThrow(projectId)));
      // The list stops at its limit (findGalleryProjects); a chosen project past it is still listed.
      const projects = project && !listed.includes(project) ? [...listed, project] : listed;
      const fallback = defaultSendProject(listed);
      return sendDevPage(
        reply,
        200,
        renderTemplatePage({
          template,
          version,
          context: gallery.contextOf(project),
          scheme: q.scheme === 'dark' ? 'dark' : 'light',
          width: q.width === '375' ? 375 : 800,
          view: q.view === 'text' ? 'text' : 'html',
          projects: projects.map((p) => ({ id: p.id, label: label(p), send: sendTarget(p, 'It ') })),
          projectId: project?.id,
          exampleSend: sendTarget(
            fallback,
            fallback
              ? `With the example project chosen, a send shows ${fallback.displayName ?? fallback.name}'s name and look: it `
              : '',
          ),
          sendingOff: send.isOn ? undefined : send.reason,
        }),
      );
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        return sendDevPage(reply, 404, renderGalleryNotFoundPage(err.code, err.message));
      throw err;
    }
  });
}
