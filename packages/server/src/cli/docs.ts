import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigurationDoc } from '../config.js';
import { renderErrorsDoc } from '../errors.js';
import type { Io } from './main.js';

export const DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs');

export function generatedDocs(): Record<string, string> {
  return { 'configuration.md': renderConfigurationDoc(), 'errors.md': renderErrorsDoc() };
}

export async function runDocs(_args: string[], io: Io): Promise<number> {
  fs.mkdirSync(DOCS_DIR, { recursive: true });
  for (const [name, content] of Object.entries(generatedDocs())) {
    fs.writeFileSync(path.join(DOCS_DIR, name), content);
    io.stdout(`wrote docs/${name}`);
  }
  return 0;
}
