import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOpenApiDocument } from '../api/openapi.js';
import { loadConfig, renderConfigurationDoc } from '../config.js';
import { renderErrorsDoc } from '../errors.js';
import type { Io } from './main.js';

export const DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs');

/** Every generated doc; openapi.json with the default settings (its server is http://127.0.0.1:3000). */
export async function generatedDocs(): Promise<Record<string, string>> {
  return {
    'configuration.md': renderConfigurationDoc(),
    'errors.md': renderErrorsDoc(),
    'openapi.json': await renderOpenApiDocument(loadConfig({})),
  };
}

export async function runDocs(_args: string[], io: Io): Promise<number> {
  fs.mkdirSync(DOCS_DIR, { recursive: true });
  for (const [name, content] of Object.entries(await generatedDocs())) {
    fs.writeFileSync(path.join(DOCS_DIR, name), content);
    io.stdout(`wrote docs/${name}`);
  }
  return 0;
}
