// What the gallery's routes share: the project a request names (checked before any query), the
// render context of a project or of the example, and the template version a request names.
import {
  findGalleryVersion,
  GALLERY_CONTEXT,
  type RenderContext,
  TemplateNotFoundError,
  TemplateVersionNotFoundError,
} from '@mailsvc/templates';
import { type GalleryProject, renderContextOf } from '../../db/repositories/gallery.js';
import type { Deps } from '../../domain/deps.js';
import { findGalleryProject, GALLERY_ENVIRONMENT } from '../../domain/send/send-from-gallery.js';
import { ApiError } from '../../errors.js';

export const one = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * A project id as the index carries it into links (anything else is dropped there), and the only
 * project a page or body may name: anything else is not found without a query (a NUL, say, which
 * PostgreSQL refuses in text, or a megabyte of it).
 */
export const PROJECT_ID = /^[A-Za-z0-9_]{1,64}$/;

export function findVersion(id: string, version: string | undefined) {
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
export const notFoundProject = (projectId: string) =>
  new ApiError(
    'project_not_found',
    `No project ${projectId.replace(/[^\x20-\x7e]/g, '?').slice(0, 70)} in this database.`,
  );

export interface GalleryContext {
  deps: Deps;
  /** The render context of a project, or of the example when none is chosen. */
  contextOf(p: GalleryProject | undefined): RenderContext;
  /** The named project; 404 project_not_found for an unknown one; undefined when none is named. */
  projectOrThrow(projectId: string | undefined): Promise<GalleryProject | undefined>;
}

export function galleryContext(deps: Deps): GalleryContext {
  const exampleContext: RenderContext = {
    ...GALLERY_CONTEXT,
    unsubscribeUrl: `${deps.config.MAILSVC_PUBLIC_URL}/u/example`,
  };
  return {
    deps,
    contextOf: (p) =>
      p
        ? { ...renderContextOf(p, GALLERY_ENVIRONMENT), unsubscribeUrl: exampleContext.unsubscribeUrl }
        : exampleContext,
    async projectOrThrow(projectId) {
      if (projectId === undefined) return undefined;
      const p = PROJECT_ID.test(projectId) ? await findGalleryProject(deps, projectId) : undefined;
      if (!p) throw notFoundProject(projectId);
      return p;
    },
  };
}
