// The frame of every signed-in page: header, environment picker, navigation, main landmark.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { consoleApi } from './api.js';
import { useConsole } from './context.js';
import { BASE } from './router.js';
import type { EnvChoice } from './session.js';

export const NAV_ITEMS: { path: string; label: string }[] = [
  { path: '/', label: 'Overview' },
  { path: '/emails', label: 'Emails' },
  { path: '/suppressions', label: 'Recipients & suppressions' },
  { path: '/domains', label: 'Domains' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/keys', label: 'API keys' },
  { path: '/contacts', label: 'Contacts' },
  { path: '/bulk', label: 'Bulk sends' },
  { path: '/templates', label: 'Templates' },
  { path: '/team', label: 'Team' },
  { path: '/audit', label: 'Audit log' },
  { path: '/operator', label: 'Operator' },
];

function isCurrent(item: string, path: string): boolean {
  if (item === '/') return path === '/';
  return path === item || path.startsWith(`${item}/`);
}

export function Shell(props: {
  path: string;
  choices: EnvChoice[];
  onEnvChange: (id: string) => void;
  onSignedOut: () => void;
  children: ComponentChildren;
}) {
  const { me, env, role } = useConsole();
  const [signOutError, setSignOutError] = useState('');
  const signOut = async () => {
    setSignOutError('');
    try {
      await consoleApi.signOut();
      props.onSignedOut();
    } catch (e) {
      setSignOutError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="site-header">
        <a class="brand" href={`${BASE}/`}>
          mailsvc console
        </a>
        <div class="env-picker">
          <label for="env-select">Environment</label>
          <select
            id="env-select"
            value={env.environmentId}
            onChange={(e) => props.onEnvChange(e.currentTarget.value)}
          >
            {props.choices.map((c) => (
              <option key={c.environmentId} value={c.environmentId}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
        <div class="who">
          <span class="who-email">{me.email}</span> <span class="badge">{role}</span>
          <button type="button" class="btn btn-small" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      {signOutError ? (
        <div class="alert alert-error" role="alert">
          {signOutError}
        </div>
      ) : null}
      <nav aria-label="Console" class="site-nav">
        <ul>
          {NAV_ITEMS.map((item) => (
            <li key={item.path}>
              <a
                href={`${BASE}${item.path}`}
                aria-current={isCurrent(item.path, props.path) ? 'page' : undefined}
              >
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </>
  );
}
