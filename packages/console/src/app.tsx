// The app: who is signed in, which environment is chosen, and which page the path names.
import type { MemberRole } from '@mailsvc/contract/roles';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ConsoleApiError, consoleApi, type Me, setCsrfToken, setSessionLostHandler } from './api.js';
import { ErrorBox, Loading } from './components/ui.js';
import { Ctx } from './context.js';
import { AuditPage } from './pages/audit.js';
import { BulkPage } from './pages/bulk.js';
import { ContactsPage } from './pages/contacts.js';
import { DomainsPage } from './pages/domains.js';
import { EmailsPage } from './pages/emails.js';
import { KeysPage } from './pages/keys.js';
import { MessagePage } from './pages/message.js';
import { NotFoundPage } from './pages/not-found.js';
import { OperatorPage, OperatorStandalone } from './pages/operator.js';
import { OverviewPage } from './pages/overview.js';
import { SignInPage } from './pages/sign-in.js';
import { SuppressionsPage } from './pages/suppressions.js';
import { TeamPage } from './pages/team.js';
import { TemplatesPage } from './pages/templates.js';
import { WebhooksPage } from './pages/webhooks.js';
import { BASE, navigate, useLocation } from './router.js';
import {
  clientFor,
  environmentChoices,
  forgetClients,
  storedEnvironmentId,
  storeEnvironmentId,
} from './session.js';
import { Shell } from './shell.js';

type MeState =
  | { kind: 'loading' }
  | { kind: 'signed-out' }
  | { kind: 'error'; error: unknown }
  | { kind: 'in'; me: Me };

function Page({ path }: { path: string }) {
  const message = /^\/emails\/([^/]+)$/.exec(path);
  if (message) return <MessagePage messageId={decodeURIComponent(message[1]!)} />;
  switch (path) {
    case '/':
      return <OverviewPage />;
    case '/emails':
      return <EmailsPage />;
    case '/suppressions':
      return <SuppressionsPage />;
    case '/domains':
      return <DomainsPage />;
    case '/webhooks':
      return <WebhooksPage />;
    case '/keys':
      return <KeysPage />;
    case '/contacts':
      return <ContactsPage />;
    case '/bulk':
      return <BulkPage />;
    case '/team':
      return <TeamPage />;
    case '/templates':
      return <TemplatesPage />;
    case '/audit':
      return <AuditPage />;
    case '/operator':
      return <OperatorPage />;
    default:
      return <NotFoundPage />;
  }
}

function useMe() {
  const [state, setState] = useState<MeState>({ kind: 'loading' });
  const load = () => {
    setState({ kind: 'loading' });
    consoleApi.me().then(
      (me) => {
        setCsrfToken(me.csrfToken);
        setState({ kind: 'in', me });
      },
      (error: unknown) => {
        if (error instanceof ConsoleApiError && error.status === 401) setState({ kind: 'signed-out' });
        else setState({ kind: 'error', error });
      },
    );
  };
  const signedOut = () => {
    setCsrfToken('');
    forgetClients();
    setState({ kind: 'signed-out' });
  };
  useEffect(() => {
    setSessionLostHandler(signedOut);
    // The sign-in page needs no session: asking /me there would only log a 401 in the console.
    if (location.pathname === `${BASE}/sign-in`) setState({ kind: 'signed-out' });
    else load();
  }, []);
  return { state, load, signedOut };
}

export function App() {
  const { path } = useLocation();
  const { state, load, signedOut } = useMe();
  const [envId, setEnvId] = useState<string | null>(storedEnvironmentId);
  const me = state.kind === 'in' ? state.me : null;
  const choices = useMemo(() => (me ? environmentChoices(me) : []), [me]);
  const env = choices.find((c) => c.environmentId === envId) ?? choices[0];

  useEffect(() => {
    // The operator area needs the admin token, not a session: it stays put when signed out.
    if (state.kind === 'signed-out' && path !== '/sign-in' && path !== '/operator')
      navigate(`${BASE}/sign-in`, true);
    if (state.kind === 'in' && path === '/sign-in') navigate(`${BASE}/`, true);
  }, [state.kind, path]);

  const ctx = useMemo(
    () =>
      me && env
        ? { me, env, client: clientFor(env.environmentId), role: env.membership.role as MemberRole }
        : null,
    [me, env],
  );

  if (state.kind === 'loading')
    return (
      <main id="main">
        <Loading />
      </main>
    );
  // Signed out (or /me failed, or no environment, so no shell): the operator page stands alone.
  if (path === '/operator' && !ctx) return <OperatorStandalone />;
  if (state.kind === 'error')
    return (
      <main id="main">
        <h1>mailsvc console</h1>
        <ErrorBox error={state.error} />
      </main>
    );
  if (state.kind === 'signed-out' || path === '/sign-in')
    return (
      <SignInPage
        onSignedIn={() => {
          navigate(`${BASE}/`, true);
          load();
        }}
      />
    );
  if (!ctx)
    return (
      <main id="main">
        <h1>No environment</h1>
        <p>Your account is not a member of any project yet. Ask a tenant owner or admin to invite you.</p>
      </main>
    );
  const changeEnv = (id: string) => {
    storeEnvironmentId(id);
    setEnvId(id);
  };
  return (
    <Ctx.Provider value={ctx}>
      <Shell path={path} choices={choices} onEnvChange={changeEnv} onSignedOut={signedOut}>
        <Page key={ctx.env.environmentId} path={path} />
      </Shell>
    </Ctx.Provider>
  );
}
