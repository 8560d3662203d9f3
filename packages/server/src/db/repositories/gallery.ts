// What the dev gallery (/dev/templates) reads: the projects it can render a brand for and send
// through. Dev pages only (loopback, `mailsvc start`): every tenant's projects are listed.
import type { RenderContext } from '@mailsvc/templates';
import { sql } from 'kysely';
import type { Db } from '../schema.js';

export interface GalleryProject {
  id: string;
  name: string;
  displayName: string | null;
  tenantName: string;
  supportEmail: string | null;
  brandColor: string | null;
  logoUrl: string | null;
  postalAddress: string | null;
  /** The environment a gallery send goes through, with a key to attribute it to; null: none. */
  sendFrom: { environmentId: string; environmentName: string; keyId: string } | null;
}

interface GalleryProjectRow {
  id: string;
  name: string;
  display_name: string | null;
  tenant_name: string;
  support_email: string | null;
  brand_color: string | null;
  logo_url: string | null;
  postal_address: string | null;
  environment_id: string | null;
  environment_name: string | null;
  key_id: string | null;
}

/** At most this many projects in the gallery's list (a dev database has a handful). */
const LIST_LIMIT = 500;

/**
 * Live projects of live tenants (one, with `projectId`), each with the environment a send goes
 * through: the one named `preferredEnvironment` if it has an active key, else the oldest that has.
 */
export async function findGalleryProjects(
  db: Db,
  opts: { preferredEnvironment: string; projectId?: string },
): Promise<GalleryProject[]> {
  const { rows } = await sql<GalleryProjectRow>`
    SELECT p.id, p.name, p.display_name, t.name AS tenant_name, p.support_email,
      p.brand_color, p.logo_url, p.postal_address,
      s.environment_id, s.environment_name, s.key_id
    FROM projects p
    JOIN tenants t ON t.id = p.tenant_id AND t.deleted_at IS NULL
    LEFT JOIN LATERAL (
      SELECT e.id AS environment_id, e.name AS environment_name, k.id AS key_id
      FROM environments e
      JOIN api_keys k ON k.environment_id = e.id AND k.revoked_at IS NULL AND k.session_id IS NULL
      WHERE e.project_id = p.id AND e.deleted_at IS NULL
      ORDER BY (e.name = ${opts.preferredEnvironment}) DESC, e.created_at, e.id, k.created_at DESC, k.id
      LIMIT 1
    ) s ON true
    WHERE p.deleted_at IS NULL AND (${opts.projectId ?? null}::text IS NULL OR p.id = ${opts.projectId ?? null})
    ORDER BY t.name, COALESCE(p.display_name, p.name), p.id
    LIMIT ${LIST_LIMIT}`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    displayName: r.display_name,
    tenantName: r.tenant_name,
    supportEmail: r.support_email,
    brandColor: r.brand_color,
    logoUrl: r.logo_url,
    postalAddress: r.postal_address,
    sendFrom:
      r.environment_id && r.environment_name && r.key_id
        ? { environmentId: r.environment_id, environmentName: r.environment_name, keyId: r.key_id }
        : null,
  }));
}

/** A project's look in its mail, as delivery renders it (delivery/deliver-message.ts). */
export function renderContextOf(
  p: GalleryProject,
  fallbackEnvironment: string,
): Omit<RenderContext, 'unsubscribeUrl'> {
  return {
    projectName: p.displayName ?? p.name,
    environmentName: p.sendFrom?.environmentName ?? fallbackEnvironment,
    supportEmail: p.supportEmail,
    brandColor: p.brandColor,
    logoUrl: p.logoUrl,
    postalAddress: p.postalAddress,
  };
}
