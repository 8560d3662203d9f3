// The signed-in user's console sessions: where and since when, with revoke.
import { consoleApi, type SessionInfo } from '../api.js';
import { ActionStatus, AsyncView, DateTime, TableWrap, useAction, useAsync } from '../components/ui.js';

function SessionRow({
  s,
  onRevoke,
  busy,
}: {
  s: SessionInfo;
  onRevoke: (s: SessionInfo) => void;
  busy: boolean;
}) {
  return (
    <tr>
      <td>
        {s.userAgent ?? <span class="muted">unknown</span>}
        {s.current ? (
          <>
            {' '}
            <span class="badge badge-current">This session</span>
          </>
        ) : null}
      </td>
      <td>
        <DateTime iso={s.createdAt} />
      </td>
      <td>
        <DateTime iso={s.lastSeenAt} />
      </td>
      <td>
        <DateTime iso={s.expiresAt} />
      </td>
      <td>
        {s.current ? null : (
          <button type="button" class="btn btn-small btn-danger" disabled={busy} onClick={() => onRevoke(s)}>
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}

export function Sessions() {
  const state = useAsync(() => consoleApi.sessionsList(), []);
  const action = useAction();
  const revoke = (s: SessionInfo) =>
    action.run(async () => {
      if (!window.confirm('Sign this session out?')) return;
      await consoleApi.sessionsRevoke(s.id);
      state.reload();
      return 'Session revoked.';
    });
  return (
    <section aria-labelledby="sessions-h">
      <h2 id="sessions-h">Your sessions</h2>
      <ActionStatus action={action} />
      <AsyncView state={state} isEmpty={(d) => d.sessions.length === 0} empty="No sessions.">
        {(d) => (
          <TableWrap label="Your sessions">
            <table>
              <thead>
                <tr>
                  <th scope="col">Browser</th>
                  <th scope="col">Signed in</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {d.sessions.map((s) => (
                  <SessionRow key={s.id} s={s} onRevoke={revoke} busy={action.busy} />
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </AsyncView>
    </section>
  );
}
