/** The usage period: the calendar month in UTC. `endsAt` is the start of the next month (exclusive). */
export interface UsagePeriod {
  id: string;
  startsAt: Date;
  endsAt: Date;
}

export function usagePeriod(now: Date): UsagePeriod {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return {
    id: `${y}-${String(m + 1).padStart(2, '0')}`,
    startsAt: new Date(Date.UTC(y, m, 1)),
    endsAt: new Date(Date.UTC(y, m + 1, 1)),
  };
}
