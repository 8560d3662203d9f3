// The template gallery (/dev/templates), served by `mailsvc start` only and only to requests
// addressed to a loopback name (dev-access.ts): an index, a page per template, its script, and
// two JSON routes the page calls: render (no side effect) and send (through POST /v1/send's
// use-case, to the dev inbox). The send route is registered only with the capture transport on
// the embedded database (gallerySendFor in dev-access.ts): on PostgreSQL another worker with an
// SMTP relay could claim the message from the shared queue, and a gallery never sends real mail.
import { BODY_LIMIT } from '@mailsvc/contract/http';
import {
  findGalleryVersion,
  frameDocument,
  GALLERY_CONTEXT,
  galleryScript,
  type RenderContext,
  renderGalleryIndexPage,
  renderGalleryNotFoundPage,
  renderGalleryPreview,
  renderTemplatePage,
  TemplateNotFoundError,
  TemplateVersionNotFoundError,
} from '@mailsvc/templates';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type GalleryProject, renderContextOf } from '../../db/repositories/gallery.js';
import type { Deps } from '../../domain/deps.js';
import {
  defaultSendProject,
  findGalleryProject,
  GALLERY_ENVIRONMENT,
  listGalleryProjects,
  sendFromGallery,
} from '../../domain/send/send-from-gallery.js';
import { ApiError } from '../../errors.js';
import { jsonBodyGuard } from '../json-body.js';
import { DEV_PAGE_HEADERS, type GallerySend, requireLoopbackHost, requireSameOrigin } from './dev-access.js';

const JSON_HEADERS = { 'cache-control': 'no-store' };

const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).headers(DEV_PAGE_HEADERS).type('text/html; charset=utf-8').send(body);

// The POST routes render with any project's brand and send mail: requireSameOrigin keeps pages
// of other sites (and other local dev servers) from driving them through the developer's browser.
/** Loopback Host first (everything else does not exist), then origin, then media type. */
const POST_GUARDS = [requireLoopbackHost, requireSameOrigin, jsonBodyGuard()];

const one = (value: unknown) => (typeof value === 'string' ? value : undefined);
/**
 * A project id as the index carries it into links (anything else is dropped there), and the only
 * project a page or body may name: anything else is not found without a query (a NUL, say, which
 * PostgreSQL refuses in text, or a megabyte of it).
 */
const PROJECT_ID = /^[A-Za-z0-9_]{1,64}$/;

function findVersion(id: string, version: string | undefined) {
  try {
    return findGalleryVersion(id, version);
  } catch (err) {
    if (err instanceof TemplateNotFoundError) throw new ApiError('template_not_found', err.message);
    if (err instanceof TemplateVersionNotFoundError)
      throw new ApiError('template_version_not_found', `Template ${id} has no version ${version}.`);
    throw err;
  }
}

/** The project id is shown as far as it is printable and short (it may be anything). */
const notFoundProject = (projectId: string) =>
  new ApiError(
    'project_not_found',
    `No project ${projectId.replace(/[^\x20-\x7e]/g, '?').slice(0, 70)} in this database.`,
  );

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

const BodyVersion = { type: 'string', minLength: 1, maxLength: 32 };
/** Any string: one that is not a project id (PROJECT_ID) is 404 project_not_found, as the page. */
const BodyProject = { type: 'string' };
const BodyData = { type: 'object', additionalProperties: true };

export interface DevRoutesOptions {
  /**
   * POST /dev/templates/:id/send: only when on (gallerySendFor: the capture transport on the
   * embedded database); off, the route does not exist and the page says why. Default: off.
   */
  send?: GallerySend;
}

const SENDING_OFF: GallerySend = {
  isOn: false,
  reason: 'Sending is off: the gallery sends only with the capture transport on the embedded database.',
};

export function devRoutes(app: FastifyInstance, deps: Deps, opts: DevRoutesOptions = {}) {
  const send = opts.send ?? SENDING_OFF;
  const exampleContext: RenderContext = {
    ...GALLERY_CONTEXT,
    unsubscribeUrl: `${deps.config.MAILSVC_PUBLIC_URL}/u/example`,
  };
  const contextOf = (p: GalleryProject | undefined): RenderContext =>
    p
      ? { ...renderContextOf(p, GALLERY_ENVIRONMENT), unsubscribeUrl: exampleContext.unsubscribeUrl }
      : exampleContext;

  async function projectOrThrow(projectId: string | undefined): Promise<GalleryProject | undefined> {
    if (projectId === undefined) return undefined;
    const p = PROJECT_ID.test(projectId) ? await findGalleryProject(deps, projectId) : undefined;
    if (!p) throw notFoundProject(projectId);
    return p;
  }

  app.get('/dev/templates', { onRequest: requireLoopbackHost }, async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const project = one(q.project);
    return html(
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

  app.get('/dev/templates/:id', { onRequest: requireLoopbackHost }, async (req, reply) => {
    const { id } = req.params as { id: string };
    const q = req.query as Record<string, unknown>;
    try {
      const { template, version } = findVersion(id, one(q.version));
      // `?project=` (the toolbar's example option) is no project; a repeated one is not one id.
      if (q.project !== undefined && typeof q.project !== 'string')
        throw new ApiError('project_not_found', 'Name one project with ?project=.');
      const projectId = one(q.project) || undefined;
      const listed = await listGalleryProjects(deps);
      const project =
        projectId === undefined
          ? undefined
          : (listed.find((p) => p.id === projectId) ?? (await projectOrThrow(projectId)));
      // The list stops at its limit (findGalleryProjects); a chosen project past it is still listed.
      const projects = project && !listed.includes(project) ? [...listed, project] : listed;
      const fallback = defaultSendProject(listed);
      return html(
        reply,
        200,
        renderTemplatePage({
          template,
          version,
          context: contextOf(project),
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
        return html(reply, 404, renderGalleryNotFoundPage(err.code, err.message));
      throw err;
    }
  });

  app.post(
    '/dev/templates/:id/render',
    {
      onRequest: POST_GUARDS,
      bodyLimit: BODY_LIMIT,
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['data'],
          properties: {
            version: BodyVersion,
            data: BodyData,
            project: BodyProject,
            colorScheme: { type: 'string', enum: ['light', 'dark'] },
          },
        },
      },
    },
    async (req, reply) => {
      const { id } = req.params as { id: string };
      const body = req.body as {
        version?: string;
        data: Record<string, unknown>;
        project?: string;
        colorScheme?: 'light' | 'dark';
      };
      const { version } = findVersion(id, body.version);
      const context = contextOf(await projectOrThrow(body.project));
      const out = renderGalleryPreview(version, body.data, context, body.colorScheme ?? 'light');
      if (!out.ok) {
        throw new ApiError(
          'invalid_template_data',
          `The data does not match template ${id} ${version.version}.`,
          out.errors.map((e) => ({ path: `/data${e.path === '/' ? '' : e.path}`, message: e.message })),
        );
      }
      // frameHtml: the HTML as the preview frame shows it (links open in a new tab).
      return reply
        .headers(JSON_HEADERS)
        .send({ ok: true, ...out.message, frameHtml: frameDocument(out.message.html) });
    },
  );

  if (!send.isOn) return;
  app.post(
    '/dev/templates/:id/send',
    {
      onRequest: POST_GUARDS,
      bodyLimit: BODY_LIMIT,
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['data', 'to'],
          properties: {
            version: BodyVersion,
            data: BodyData,
            to: { type: 'string', minLength: 1, maxLength: 320 },
            project: BodyProject,
          },
        },
      },
    },
    async (req, reply) => {
      const { id } = req.params as { id: string };
      const body = req.body as {
        version?: string;
        data: Record<string, unknown>;
        to: string;
        project?: string;
      };
      // An unknown template or version answers before the project is looked up; a draft is
      // refused by the send itself (published versions only).
      const { version } = findVersion(id, body.version);
      if (body.project !== undefined && !PROJECT_ID.test(body.project)) throw notFoundProject(body.project);
      const result = await sendFromGallery(deps, {
        projectId: body.project,
        templateId: id,
        templateVersion: version.version,
        data: body.data,
        to: body.to,
      });
      return reply.headers(JSON_HEADERS).send({
        ok: true,
        ...result,
        inboxUrl: '/dev/inbox',
        messageUrl: `/dev/inbox/${result.messageId}`,
      });
    },
  );
}
