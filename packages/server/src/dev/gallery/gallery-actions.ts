// The two JSON routes a template page calls: render (no side effect) and send (through POST
// /v1/send's use-case, to the dev inbox).
import { BODY_LIMIT } from '@mailsvc/contract/http';
import { frameDocument, renderGalleryPreview } from '@mailsvc/templates';
import type { FastifyInstance } from 'fastify';
import { jsonBodyGuard } from '../../api/json-body.js';
import { sendFromGallery } from '../../domain/send/send-from-gallery.js';
import { ApiError } from '../../errors.js';
import { requireLoopbackHost, requireSameOrigin } from '../dev-access.js';
import { findVersion, type GalleryContext, notFoundProject, PROJECT_ID } from './gallery-context.js';

const JSON_HEADERS = { 'cache-control': 'no-store' };

// The POST routes render with any project's brand and send mail: requireSameOrigin keeps pages
// of other sites (and other local dev servers) from driving them through the developer's browser.
/** Loopback Host first (everything else does not exist), then origin, then media type. */
const POST_GUARDS = [requireLoopbackHost, requireSameOrigin, jsonBodyGuard()];

const BodyVersion = { type: 'string', minLength: 1, maxLength: 32 };
/** Any string: one that is not a project id (PROJECT_ID) is 404 project_not_found, as the page. */
const BodyProject = { type: 'string' };
const BodyData = { type: 'object', additionalProperties: true };

/** POST /dev/templates/:id/render: the message as it would be sent, and as the preview frame shows it. */
export function renderRoute(app: FastifyInstance, gallery: GalleryContext) {
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
      const context = gallery.contextOf(await gallery.projectOrThrow(body.project));
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
}

/** POST /dev/templates/:id/send: one message through a project's environment to the dev inbox. */
export function sendRoute(app: FastifyInstance, gallery: GalleryContext) {
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
      const result = await sendFromGallery(gallery.deps, {
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
