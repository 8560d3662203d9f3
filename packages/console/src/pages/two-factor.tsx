// The signed-in person's second factor: set up (a secret and its otpauth link for an
// authenticator app, shown once), turned on with a current code, turned off with one.
import { useState } from 'preact/hooks';
import { consoleApi } from '../api.js';
import { ActionStatus, CopyButton, DigitsField, SubmitActions, useAction } from '../components/ui.js';
import { useConsole } from '../context.js';

export function TwoFactor() {
  const { me } = useConsole();
  const [enabled, setEnabled] = useState(me.totpEnabled);
  const [setup, setSetup] = useState<{ secret: string; uri: string } | null>(null);
  const [code, setCode] = useState('');
  const action = useAction();
  const begin = () =>
    action.run(async () => {
      setSetup(await consoleApi.totpSetUp());
      return 'Add the key to your authenticator app, then enter the code it shows.';
    });
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      if (enabled) await consoleApi.totpDisable(code);
      else await consoleApi.totpEnable(code);
      setEnabled(!enabled);
      setSetup(null);
      setCode('');
      return enabled
        ? 'Two-factor sign-in is off.'
        : 'Two-factor sign-in is on: sign-in asks for a code from your app.';
    });
  };
  return (
    <section aria-labelledby="two-factor-h">
      <h2 id="two-factor-h">Two-factor sign-in</h2>
      <p>
        {enabled
          ? 'On: after the mailed code, sign-in asks for a code from your authenticator app.'
          : 'Off: sign-in asks for the mailed code only.'}
      </p>
      {!enabled && !setup ? (
        <button type="button" class="btn" disabled={action.busy} onClick={begin}>
          Set up an authenticator app
        </button>
      ) : null}
      {setup ? (
        <div class="panel">
          <p class="secret-row">
            <span>
              Key: <code data-testid="totp-secret">{setup.secret}</code>
            </span>
            <CopyButton text={setup.secret} label="Copy key" />
          </p>
          <p>
            <a href={setup.uri}>Open in an authenticator app</a>
          </p>
        </div>
      ) : null}
      {enabled || setup ? (
        <form class="inline-form" onSubmit={submit}>
          <div class="field">
            <DigitsField id="totp-code" label="Authenticator code" value={code} onInput={setCode} />
          </div>
          <SubmitActions busy={action.busy}>{enabled ? 'Turn off' : 'Turn on'}</SubmitActions>
        </form>
      ) : null}
      <ActionStatus action={action} />
    </section>
  );
}
