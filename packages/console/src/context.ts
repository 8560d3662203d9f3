// What every signed-in page reads: the member, the chosen environment, its client and role.
import type { MemberRole } from '@mailsvc/contract/roles';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me } from './api.js';
import type { Mailsvc } from './sdk.js';
import type { EnvChoice } from './session.js';

export interface ConsoleContext {
  me: Me;
  env: EnvChoice;
  client: Mailsvc;
  role: MemberRole;
}

export const Ctx = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const value = useContext(Ctx);
  if (!value) throw new Error('useConsole outside the signed-in shell');
  return value;
}
