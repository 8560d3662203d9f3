import type { TemplateDefinition } from '../model.js';
import { accountTemplates } from './account.js';
import { authTemplates } from './auth.js';
import { billingTemplates } from './billing.js';
import { notificationTemplates } from './notifications.js';
import { teamTemplates } from './team.js';

/** The 51 templates of DESIGN.md §6, in catalogue order. */
export const templates: readonly TemplateDefinition[] = [
  ...authTemplates,
  ...accountTemplates,
  ...teamTemplates,
  ...billingTemplates,
  ...notificationTemplates,
];
