// The overview's 30 days: mail per UTC day as stacked bars (delivered, bounced, complained, failed)
// in an SVG drawn from the data (no chart library), the bounce and complaint rates beside the
// thresholds providers act at, and the same figures as a table for screen readers and copying.
import { AsyncView, TableWrap, useAsync } from '../components/ui.js';
import { useConsole } from '../context.js';
import type { GetDailyStatsResult } from '../sdk.js';

type Day = GetDailyStatsResult['days'][number];
const SERIES = ['delivered', 'bounced', 'complained', 'failed'] as const;
const HEIGHT = 160;
const BAR = 18;
const GAP = 6;

const percent = (r: number | null) => (r === null ? '—' : `${(r * 100).toFixed(2)} %`);

function Bars({ days }: { days: Day[] }) {
  const max = Math.max(1, ...days.map((d) => SERIES.reduce((n, s) => n + d[s], 0)));
  const width = days.length * (BAR + GAP);
  const total = days.reduce((n, d) => n + d.accepted, 0);
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${width} ${HEIGHT + 20}`}
      role="img"
      aria-label={`Messages per day over ${days.length} days: ${total} accepted; the table below has each day.`}
    >
      {days.map((d, i) => {
        let y = HEIGHT;
        return (
          <g key={d.date}>
            {SERIES.map((s) => {
              const h = (d[s] / max) * HEIGHT;
              y -= h;
              return h > 0 ? (
                <rect key={s} class={`bar-${s}`} x={i * (BAR + GAP)} y={y} width={BAR} height={h} />
              ) : null;
            })}
            {i % 7 === days.length % 7 ? (
              <text class="chart-label" x={i * (BAR + GAP)} y={HEIGHT + 14}>
                {d.date.slice(5)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

function Rate(props: { label: string; value: number | null; limit: number }) {
  const over = props.value !== null && props.value >= props.limit;
  return (
    <div class={`rate ${over ? 'rate-over' : 'rate-ok'}`}>
      <span class="rate-label">{props.label}</span>
      <strong>{percent(props.value)}</strong>
      <span class="muted">
        {over ? 'at or over' : 'under'} {percent(props.limit)}
      </span>
    </div>
  );
}

function DaysTable({ days }: { days: Day[] }) {
  return (
    <details>
      <summary>Each day’s figures</summary>
      <TableWrap label="Mail per day">
        <table>
          <thead>
            <tr>
              {['Day', 'Accepted', 'Delivered', 'Bounced', 'Complained', 'Failed', 'Unsubscribed'].map(
                (h) => (
                  <th scope="col" key={h}>
                    {h}
                  </th>
                ),
              )}
            </tr>
          </thead>
          <tbody>
            {[...days].reverse().map((d) => (
              <tr key={d.date}>
                <td>{d.date}</td>
                <td>{d.accepted}</td>
                <td>{d.delivered}</td>
                <td>{d.bounced}</td>
                <td>{d.complained}</td>
                <td>{d.failed}</td>
                <td>{d.unsubscribed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </details>
  );
}

export function DailyChart() {
  const { client } = useConsole();
  const state = useAsync(() => client.stats.daily({ days: 30 }), [client]);
  return (
    <section aria-labelledby="daily-h" class="wide">
      <h2 id="daily-h">The last 30 days</h2>
      <AsyncView state={state}>
        {({ days, rates }) => (
          <>
            <div class="rates">
              <Rate label="Bounce rate" value={rates.bounceRate} limit={rates.bounceRateLimit} />
              <Rate label="Complaint rate" value={rates.complaintRate} limit={rates.complaintRateLimit} />
              <div class="rate">
                <span class="rate-label">Unsubscribes</span>
                <strong>{days.reduce((n, d) => n + d.unsubscribed, 0)}</strong>
              </div>
            </div>
            <Bars days={days} />
            <ul class="legend">
              {SERIES.map((s) => (
                <li key={s}>
                  <span class={`swatch bar-${s}`} aria-hidden="true" /> {s}
                </li>
              ))}
            </ul>
            <DaysTable days={days} />
          </>
        )}
      </AsyncView>
    </section>
  );
}
