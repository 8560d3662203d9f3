// Timestamps given to the admin commands (a tenant's trial end): RFC 3339 date-time with an
// explicit offset, checked here rather than by PostgreSQL, which refuses some values with an error
// (year 0000, offsets past ±15:59) and silently moves others (23:59:60 on 9999-12-31 became year
// 10000). Accepted: years 1970–9999 once in UTC, seconds 00–59 (no leap second), offsets up to
// ±14:00 (the real ones), an optional fraction. Stored in UTC.

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** The instant, or null when the text is not an accepted timestamp. */
export function parseTimestamp(text: string): Date | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, fraction, sign, oh, om] = m;
  const year = Number(y);
  // Date.UTC reads years 0–99 as 1900–1999, and nothing before 1970 is accepted anyway (a year
  // 1969 instant with an offset cannot reach 1970 in UTC).
  if (year < 1969) return null;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  if (Number(om ?? 0) > 59 || Math.abs(offsetMinutes) > 14 * 60) return null;
  const ms = Number((fraction ?? '0').padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s), ms) - offsetMinutes * 60_000;
  const instant = new Date(utc);
  const utcYear = instant.getUTCFullYear();
  return utcYear >= 1970 && utcYear <= 9999 ? instant : null;
}

export function isTimestamp(text: string): boolean {
  return parseTimestamp(text) !== null;
}

/**
 * The first whole millisecond at or after the instant (a finer fraction rounded up), or null: the
 * bound of a range over values stored in whole milliseconds (message and event ids and times).
 */
export function parseTimestampToMs(text: string): Date | null {
  const at = parseTimestamp(text);
  if (at === null) return null;
  const finer = /[1-9]/.test((/\.(\d+)/.exec(text)?.[1] ?? '').slice(3));
  return finer ? new Date(at.getTime() + 1) : at;
}
