// Telling "the database cannot be reached right now" apart from everything else. Such failures
// are answered 503 service_unavailable (never 500), retried by the worker, and never isolate a
// batch item by item (it would fail the same way).

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

// SQLSTATE: 08xxx connection exception; 57P01 admin_shutdown, 57P02 crash_shutdown,
// 57P03 cannot_connect_now (starting up or shutting down); 53300 too_many_connections; and, once
// running, a connection refused for good — 3D000 the database is gone, 28xxx credentials or
// pg_hba.conf changed: an operator's fix, not the request's fault.
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300|3D000|28[0-9A-Z]{3})$/;

// node-postgres's own wording when the socket ends or a connection cannot be had in time.
const PG_CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection terminated unexpectedly',
  'Client was closed and is not queryable',
];

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || UNAVAILABLE_SQLSTATE.test(e.code)))
    return true;
  if (typeof e.message === 'string' && PG_CLIENT_MESSAGES.some((m) => (e.message as string).includes(m)))
    return true;
  // AggregateError (connection attempts to several addresses) and wrapped causes.
  if (Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable)) return true;
  return e.cause !== undefined && e.cause !== err && isDatabaseUnavailable(e.cause);
}

// SQLSTATE of a connection that is refused for good: 3D000 no such database, 28xxx bad
// credentials or not allowed by pg_hba.conf.
const REFUSED_SQLSTATE = /^(3D000|28[0-9A-Z]{3})$/;

/** A start-up failure to reach the database, as one line naming where; null for anything else. */
export function describeConnectFailure(location: string, err: unknown): string | null {
  const e = err as { code?: unknown; message?: unknown };
  const isRefused = typeof e?.code === 'string' && REFUSED_SQLSTATE.test(e.code);
  if (!isRefused && !isDatabaseUnavailable(err)) return null;
  const reason =
    err instanceof AggregateError
      ? err.errors.map((x) => (x as Error).message).join('; ')
      : typeof e.message === 'string' && e.message !== ''
        ? e.message
        : String(e.code);
  return `cannot connect to the database at ${location}: ${reason}`;
}

/**
 * Database errors a retry may not meet: serialization failures and deadlocks (class 40), a lock
 * not available (55P03), a statement timeout (57014).
 */
export function isTransientDatabaseError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('40') || code === '55P03' || code === '57014');
}

/**
 * An error the database raised for a statement (it carries a SQLSTATE), other than the database
 * being unavailable: what one bad item of a batch can cause, so what a batch is retried item by
 * item for. An error thrown by our own code after the statement ran is not one: the batch may
 * have committed, and running its items again would accept them twice.
 */
export function isStatementError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !isDatabaseUnavailable(err);
}

/** A write refused by a unique index (SQLSTATE 23505), optionally one named `constraint`. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code !== '23505') return false;
  if (constraint === undefined) return true;
  return e.constraint === constraint || (typeof e.message === 'string' && e.message.includes(constraint));
}
