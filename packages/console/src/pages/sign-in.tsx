// Sign-in: an email address, a 6-digit code mailed to it, then the session cookie.
import { useState } from 'preact/hooks';
import { ConsoleApiError, consoleApi } from '../api.js';
import { DigitsField, errorMessage, PageTitle } from '../components/ui.js';

interface Step {
  busy: boolean;
  run: (fn: () => Promise<string>) => Promise<void>;
}

function CodeForm(props: { email: string; step: Step; onSignedIn: () => void; onBack: () => void }) {
  const [code, setCode] = useState('');
  const [totp, setTotp] = useState('');
  // Shown once the server says this address signs in with an authenticator app too.
  const [asksTotp, setAsksTotp] = useState(false);
  const verify = (event: Event) => {
    event.preventDefault();
    props.step.run(async () => {
      try {
        await consoleApi.signInVerify(props.email, code.trim(), asksTotp ? totp : undefined);
      } catch (e) {
        if (e instanceof ConsoleApiError && e.details.some((d) => d.path === '/totp')) setAsksTotp(true);
        throw e;
      }
      props.onSignedIn();
      return 'Signed in.';
    });
  };
  return (
    <form onSubmit={verify} class="stack">
      <DigitsField id="sign-in-code" label="6-digit code" value={code} onInput={setCode} />
      {asksTotp ? (
        <DigitsField id="sign-in-totp" label="Authenticator code" value={totp} onInput={setTotp} />
      ) : null}
      <button type="submit" class="btn btn-primary" disabled={props.step.busy}>
        Sign in
      </button>
      <button type="button" class="btn btn-link" onClick={props.onBack}>
        Use another address
      </button>
    </form>
  );
}

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const [error, setError] = useState('');
  const step: Step = {
    busy,
    run: async (fn) => {
      setBusy(true);
      setError('');
      setMessage('');
      try {
        setMessage(await fn());
      } catch (e) {
        setError(errorMessage(e));
      } finally {
        setBusy(false);
      }
    },
  };
  const sendCode = (event: Event) => {
    event.preventDefault();
    const address = email.trim();
    step.run(async () => {
      const res = await consoleApi.signInStart(address);
      setSent(true);
      const minutes = Math.round(res.expiresInSeconds / 60);
      return `If ${address} is a member, a 6-digit code is on its way. It expires in ${minutes} minutes.`;
    });
  };
  const back = () => {
    setSent(false);
    setMessage('');
    setError('');
  };
  return (
    <main id="main" class="sign-in">
      <div class="card">
        <p class="brand">mailsvc</p>
        <PageTitle title="Sign in">Sign in to the console</PageTitle>
        <form onSubmit={sendCode} class="stack">
          <label for="sign-in-email">Email address</label>
          <input
            id="sign-in-email"
            type="email"
            autocomplete="email"
            required
            value={email}
            readOnly={sent}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          {sent ? null : (
            <button type="submit" class="btn btn-primary" disabled={busy}>
              Send code
            </button>
          )}
        </form>
        {sent ? <CodeForm email={email.trim()} step={step} onSignedIn={onSignedIn} onBack={back} /> : null}
        <div aria-live="polite" class="live">
          {message ? <p class="notice">{message}</p> : null}
          {error ? (
            <p class="alert alert-error" role="alert">
              {error}
            </p>
          ) : null}
        </div>
      </div>
    </main>
  );
}
