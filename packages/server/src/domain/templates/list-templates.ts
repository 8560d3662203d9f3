// POST /v1/templates/list: the catalogue as an app (or the console) sees it: published versions
// only, the latest one's example data.
import type { ListTemplatesRequest, TemplateInfo } from '@mailsvc/contract/api';
import { listTemplates as catalogue, getFixture, publishedVersions } from '@mailsvc/templates';

export function listTemplates(input: ListTemplatesRequest): { templates: TemplateInfo[] } {
  const templates = catalogue()
    .filter((t) => input.category === undefined || t.category === input.category)
    .flatMap((t) => {
      const versions = publishedVersions(t);
      const latest = versions.at(-1);
      if (!latest) return [];
      return [
        {
          templateId: t.id,
          group: t.group,
          category: t.category,
          description: t.description,
          versions: versions.map((v) => v.version),
          latestVersion: latest.version,
          exampleData: getFixture(latest),
        },
      ];
    })
    .sort((a, b) => a.group.localeCompare(b.group) || a.templateId.localeCompare(b.templateId));
  return { templates };
}
