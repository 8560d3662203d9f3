// Overview: 30 days of mail with the bounce and complaint rates, the quota, the domains that need
// attention and the latest messages by status.
import {
  AsyncView,
  DateTime,
  ErrorBox,
  Loading,
  PageTitle,
  StatusBadge,
  useAsync,
} from '../components/ui.js';
import { useConsole } from '../context.js';
import { href } from '../router.js';
import { DailyChart } from './overview-chart.js';

function Quota() {
  const { client } = useConsole();
  const state = useAsync(() => client.quota.get(), [client]);
  return (
    <section aria-labelledby="quota-h">
      <h2 id="quota-h">Quota</h2>
      <AsyncView state={state}>
        {({ quota }) => (
          <dl class="facts">
            <dt>Period</dt>
            <dd>
              {quota.period.id} (<DateTime iso={quota.period.startsAt} /> to{' '}
              <DateTime iso={quota.period.endsAt} />)
            </dd>
            <dt>Used this month (tenant)</dt>
            <dd>
              {quota.monthly.used.toLocaleString()} of {quota.monthly.limit.toLocaleString()} (
              {quota.monthly.remaining.toLocaleString()} left) <StatusBadge value={quota.monthly.status} />
            </dd>
            <dt>This environment</dt>
            <dd>{quota.environment.usedThisMonth.toLocaleString()} this month</dd>
            <dt>Plan</dt>
            <dd>
              {quota.planId} <StatusBadge value={quota.accessStatus} />
            </dd>
            <dt>Sending</dt>
            <dd>
              <StatusBadge value={quota.sendingStatus} />
            </dd>
          </dl>
        )}
      </AsyncView>
    </section>
  );
}

function DomainsAttention() {
  const { client } = useConsole();
  const state = useAsync(() => client.domains.list(), [client]);
  return (
    <section aria-labelledby="domains-h">
      <h2 id="domains-h">Domains needing attention</h2>
      <AsyncView
        state={state}
        isEmpty={(d) => d.domains.every((x) => x.status === 'verified')}
        empty={
          <>
            Every sending domain is verified. <a href={href('/domains')}>Manage domains</a>
          </>
        }
      >
        {(d) => (
          <ul>
            {d.domains
              .filter((x) => x.status !== 'verified')
              .map((x) => (
                <li key={x.domainId}>
                  <a href={href('/domains', { open: x.domainId })}>{x.domain}</a>{' '}
                  <StatusBadge value={x.status} /> since <DateTime iso={x.statusSince} />
                </li>
              ))}
          </ul>
        )}
      </AsyncView>
    </section>
  );
}

function RecentMessages() {
  const { client } = useConsole();
  const state = useAsync(() => client.messages.list({ pageSize: 50 }), [client]);
  if (state.error) return <ErrorBox error={state.error} />;
  const counts = new Map<string, number>();
  for (const m of state.data?.messages ?? []) counts.set(m.status, (counts.get(m.status) ?? 0) + 1);
  return (
    <section aria-labelledby="recent-h">
      <h2 id="recent-h">The last 50 messages by status</h2>
      {state.data === undefined ? (
        <Loading />
      ) : counts.size === 0 ? (
        <p class="empty">No messages yet.</p>
      ) : (
        <ul class="counts">
          {[...counts].map(([status, n]) => (
            <li key={status}>
              <a href={href('/emails', { status })}>
                <StatusBadge value={status} /> <strong>{n}</strong>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function OverviewPage() {
  const { env } = useConsole();
  return (
    <>
      <PageTitle title="Overview">Overview</PageTitle>
      <p class="lead">{env.label}</p>
      <DailyChart />
      <div class="grid">
        <Quota />
        <DomainsAttention />
        <RecentMessages />
        <section aria-labelledby="links-h">
          <h2 id="links-h">Shortcuts</h2>
          <ul>
            <li>
              <a href={href('/emails', { status: 'bounced' })}>Bounced emails</a>
            </li>
            <li>
              <a href={href('/keys')}>Create an API key</a>
            </li>
            <li>
              <a href={href('/webhooks')}>Set up a webhook</a>
            </li>
            <li>
              <a href={href('/suppressions')}>Look up a recipient</a>
            </li>
          </ul>
        </section>
      </div>
    </>
  );
}
