// "Send to dev inbox" on a gallery page (/dev/templates/:id): the message goes through
// POST /v1/send's use-case, attributed to an API key of the chosen project's development
// environment, so it is accepted, queued, rendered, signed and captured like any other.
import { findKeyScope } from '../../db/repositories/api-keys.js';
import { findGalleryProjects, type GalleryProject } from '../../db/repositories/gallery.js';
import { ApiError } from '../../errors.js';
import { DEMO } from '../admin/bootstrap.js';
import { requireAccess, toAuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { type SendResult, sendEmail } from './send-email.js';

/** The environment a gallery send prefers: the one `mailsvc start` creates for its dev key. */
export const GALLERY_ENVIRONMENT = DEMO.environmentName;

export function listGalleryProjects(deps: Pick<Deps, 'db'>): Promise<GalleryProject[]> {
  return findGalleryProjects(deps.db, { preferredEnvironment: GALLERY_ENVIRONMENT });
}

export async function findGalleryProject(
  deps: Pick<Deps, 'db'>,
  projectId: string,
): Promise<GalleryProject | undefined> {
  const [p] = await findGalleryProjects(deps.db, { preferredEnvironment: GALLERY_ENVIRONMENT, projectId });
  return p;
}

/** Without a chosen project: the demo project `mailsvc start` creates, else the first that can send. */
export function defaultSendProject(projects: readonly GalleryProject[]): GalleryProject | undefined {
  const canSend = projects.filter((p) => p.sendFrom);
  return canSend.find((p) => p.name === DEMO.projectName && p.tenantName === DEMO.tenantName) ?? canSend[0];
}

export interface GallerySendInput {
  projectId?: string | undefined;
  templateId: string;
  templateVersion?: string | undefined;
  data: Record<string, unknown>;
  to: string;
}

export interface GallerySendResult extends SendResult {
  projectId: string;
  environmentId: string;
  environmentName: string;
}

export async function sendFromGallery(deps: Deps, input: GallerySendInput): Promise<GallerySendResult> {
  const project =
    input.projectId === undefined
      ? defaultSendProject(await listGalleryProjects(deps))
      : await findGalleryProject(deps, input.projectId);
  if (!project) {
    throw input.projectId === undefined
      ? new ApiError('project_not_found', 'There is no project to send through; run `mailsvc start` once.')
      : new ApiError('project_not_found', `No project ${input.projectId} in this database.`);
  }
  if (!project.sendFrom) {
    throw new ApiError(
      'environment_not_found',
      `Project ${project.id} has no environment with an active API key to send from; create one with \`mailsvc admin keys create --environment <env_…>\`.`,
    );
  }
  const row = await findKeyScope(deps.db, project.sendFrom.keyId);
  if (!row) throw new ApiError('environment_not_found', `The environment of project ${project.id} is gone.`);
  const auth = toAuthContext(row, deps.clock.now());
  // The checks POST /v1/send runs after authentication (api/routes/send.ts: trial, project, environment).
  requireAccess(auth, ['trial', 'project', 'environment']);
  const result = await sendEmail(
    deps,
    auth,
    {
      templateId: input.templateId,
      to: input.to,
      data: input.data,
      ...(input.templateVersion !== undefined && { templateVersion: input.templateVersion }),
    },
    undefined,
  );
  return {
    ...result,
    projectId: project.id,
    environmentId: project.sendFrom.environmentId,
    environmentName: project.sendFrom.environmentName,
  };
}
