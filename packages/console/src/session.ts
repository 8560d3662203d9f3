// The session's view of the API: one Mailsvc client per environment, authenticated by a short-lived
// key from /console/api/credentials kept in memory only, refreshed a minute before it expires and
// once more when /v1 answers 401.
import { type Credential, consoleApi, type Me, type Membership } from './api.js';
import { Mailsvc } from './sdk.js';

const ENV_STORAGE_KEY = 'mailsvc.console.environmentId';
const REFRESH_MARGIN_MS = 60_000;

export interface EnvChoice {
  environmentId: string;
  label: string;
  membership: Membership;
  projectId: string;
}

export function environmentChoices(me: Me): EnvChoice[] {
  const out: EnvChoice[] = [];
  for (const membership of me.memberships)
    for (const project of membership.projects)
      for (const env of project.environments)
        out.push({
          environmentId: env.id,
          label: `${membership.tenantName} / ${project.name} / ${env.name}`,
          membership,
          projectId: project.id,
        });
  return out;
}

export function storedEnvironmentId(): string | null {
  try {
    return localStorage.getItem(ENV_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeEnvironmentId(id: string): void {
  try {
    localStorage.setItem(ENV_STORAGE_KEY, id);
  } catch {
    // storage unavailable (private mode): the choice lasts this page only
  }
}

class CredentialSource {
  private current: Credential | null = null;
  private pending: Promise<Credential> | null = null;

  constructor(private readonly environmentId: string) {}

  async key(): Promise<string> {
    const c = this.current;
    if (c && Date.parse(c.expiresAt) - Date.now() > REFRESH_MARGIN_MS) return c.apiKey;
    return (await this.refresh()).apiKey;
  }

  refresh(): Promise<Credential> {
    if (!this.pending)
      this.pending = consoleApi
        .credentials(this.environmentId)
        .then((c) => {
          this.current = c;
          return c;
        })
        .finally(() => {
          this.pending = null;
        });
    return this.pending;
  }
}

function withAuth(init: RequestInit, key: string): RequestInit {
  const headers = { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` };
  return { ...init, headers };
}

const clients = new Map<string, Mailsvc>();

/** The SDK client of an environment (one per environment for the page's life). */
export function clientFor(environmentId: string): Mailsvc {
  const existing = clients.get(environmentId);
  if (existing) return existing;
  const creds = new CredentialSource(environmentId);
  const fetchWithKey = async (input: string, init: RequestInit): Promise<Response> => {
    const res = await globalThis.fetch(input, withAuth(init, await creds.key()));
    if (res.status !== 401) return res;
    const fresh = await creds.refresh();
    return globalThis.fetch(input, withAuth(init, fresh.apiKey));
  };
  const client = new Mailsvc({
    apiKey: 'msk_console_session',
    baseUrl: location.origin,
    fetch: fetchWithKey,
    maxRetries: 1,
  });
  clients.set(environmentId, client);
  return client;
}

export function forgetClients(): void {
  clients.clear();
}
