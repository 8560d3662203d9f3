// The console's own JSON routes (/console/api/…): cookie session, CSRF header on every POST.

export interface Environment {
  id: string;
  name: string;
}
export interface Project {
  id: string;
  name: string;
  environments: Environment[];
}
export interface Membership {
  memberId: string;
  tenantId: string;
  tenantName: string;
  role: 'viewer' | 'developer' | 'admin' | 'owner';
  projects: Project[];
}
export interface Me {
  email: string;
  name: string | null;
  csrfToken: string;
  sessionId: string;
  memberships: Membership[];
  totpEnabled: boolean;
}
export interface Credential {
  apiKey: string;
  expiresAt: string;
  role: Membership['role'];
}
export interface SessionInfo {
  id: string;
  createdAt: string;
  lastSeenAt: string | null;
  expiresAt: string;
  userAgent: string | null;
  current: boolean;
}
export interface Member {
  id: string;
  email: string;
  name: string | null;
  role: Membership['role'];
  projectIds: string[] | null;
  status: 'invited' | 'active';
  createdAt: string;
  lastSignInAt: string | null;
}

export class ConsoleApiError extends Error {
  override readonly name = 'ConsoleApiError';
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

let csrfToken = '';
let onSessionLost: () => void = () => {};

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when a console route answers 401: the session ended, show the sign-in page. */
export function setSessionLostHandler(handler: () => void): void {
  onSessionLost = handler;
}

async function parse<T>(res: Response): Promise<T> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (res.ok) return body as T;
  const error = (
    body as
      | { error?: { code?: string; message?: string; details?: { path: string; message: string }[] } }
      | undefined
  )?.error;
  throw new ConsoleApiError(
    error?.code ?? 'invalid_response',
    error?.message ?? `The server answered ${res.status}.`,
    res.status,
    error?.details ?? [],
  );
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, quiet = false): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method === 'POST') {
    headers['content-type'] = 'application/json';
    if (csrfToken) headers['x-csrf-token'] = csrfToken;
  }
  let res: Response;
  try {
    res = await fetch(`/console/api/${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(method === 'POST' && { body: JSON.stringify(body ?? {}) }),
    });
  } catch {
    throw new ConsoleApiError('network_error', 'Could not reach the server. Check your connection.', 0);
  }
  if (res.status === 401 && !quiet) {
    const err = await parse<never>(res).catch((e: unknown) => e);
    onSessionLost();
    throw err;
  }
  return parse<T>(res);
}

export const consoleApi = {
  me: () => call<Me>('GET', 'me', undefined, true),
  signInStart: (email: string) =>
    call<{ sent: boolean; expiresInSeconds: number }>('POST', 'sign-in/start', { email }, true),
  signInVerify: (email: string, code: string, totp?: string) =>
    call<{ signedIn: boolean }>('POST', 'sign-in/verify', { email, code, ...(totp && { totp }) }, true),
  totpSetUp: () => call<{ secret: string; uri: string }>('POST', 'totp/setup', {}),
  totpEnable: (code: string) => call<{ enabled: boolean }>('POST', 'totp/enable', { code }),
  totpDisable: (code: string) => call<{ enabled: boolean }>('POST', 'totp/disable', { code }),
  signOut: () => call<{ signedOut: boolean }>('POST', 'sign-out', {}, true),
  credentials: (environmentId: string) => call<Credential>('POST', 'credentials', { environmentId }),
  sessionsList: () => call<{ sessions: SessionInfo[] }>('POST', 'sessions/list', {}),
  sessionsRevoke: (sessionId: string) => call<{ revoked: boolean }>('POST', 'sessions/revoke', { sessionId }),
  membersList: (tenantId: string) => call<{ members: Member[] }>('POST', 'members/list', { tenantId }),
  membersInvite: (body: {
    tenantId: string;
    email: string;
    name?: string;
    role: Membership['role'];
    projectIds?: string[];
  }) => call<{ member: Member }>('POST', 'members/invite', body),
  membersUpdate: (tenantId: string, memberId: string, role: Membership['role']) =>
    call<{ member: Member }>('POST', 'members/update', { tenantId, memberId, role }),
  membersRemove: (tenantId: string, memberId: string) =>
    call<{ removed: boolean }>('POST', 'members/remove', { tenantId, memberId }),
};
