// One route per catalogue template: POST /<routePath>, operation <operationName>.
import { listTemplates, type TemplateDefinition } from '@mailsvc/templates';

export interface TemplateRoute {
  path: string;
  templateId: string;
  operationId: string;
  template: TemplateDefinition;
}

export const templateRoutes: readonly TemplateRoute[] = listTemplates().map((t) => ({
  path: t.routePath.startsWith('/') ? t.routePath : `/${t.routePath}`,
  templateId: t.id,
  operationId: t.operationName,
  template: t,
}));

export const routesByPath: ReadonlyMap<string, TemplateRoute> = new Map(
  templateRoutes.map((r) => [r.path, r]),
);
