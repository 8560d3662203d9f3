import type { ActionButtonField, JsonSchema } from './types.js';
import { urlSchema } from './url.js';

export const BUTTON_LABEL_MAX = 120;

export function actionButton(
  labelDefault: string,
  opts: { isUrlRequired?: boolean } = {},
): ActionButtonField {
  return {
    kind: 'actionButton',
    name: 'actionButton',
    labelDefault,
    isUrlRequired: opts.isUrlRequired ?? false,
  };
}

export function actionButtonSchema(f: ActionButtonField): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      label: { type: 'string', maxLength: BUTTON_LABEL_MAX, default: f.labelDefault },
      url: urlSchema(),
    },
    ...(f.isUrlRequired && { required: ['url'] }),
  };
}
