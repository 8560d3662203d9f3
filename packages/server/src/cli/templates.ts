import type { Io } from './main.js';

export async function runTemplates(args: string[], io: Io): Promise<number> {
  const { runTemplatesCommand } = await import('@mailsvc/templates/cli');
  return runTemplatesCommand(args, io);
}
