import pino, { type Logger } from 'pino';

/**
 * A request as the log shows it: the method and the route it matched (`/u/*`, `/dev/inbox/:id`),
 * never the URL as sent. Paths carry capabilities (an unsubscribe token is the power to
 * unsubscribe someone) in spellings no pattern over the raw URL catches (`/%75/…`, `//u/…`,
 * `/u/./…`); a request that matched no route logs no path at all.
 */
function serializeRequest(req: { method?: string; routeOptions?: { url?: string } }) {
  return { method: req.method, path: req.routeOptions?.url ?? '(no route)' };
}

/**
 * Errors without the values they may quote. PostgreSQL's messages and details carry the data of
 * the statement that failed (`invalid input syntax for type integer: "jane@example.com"`, `Key
 * (email)=(…) already exists`, the JSON it could not read): a database error is logged by its
 * SQLSTATE, severity, routine and the names of the objects involved only.
 */
export function serializeError(err: unknown): unknown {
  if (!err || typeof err !== 'object') return err;
  const e = err as Record<string, unknown>;
  const isDatabaseError =
    typeof e.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
  if (!isDatabaseError) {
    const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
    if (e.cause !== undefined) out.cause = serializeError(e.cause);
    return out;
  }
  const out: Record<string, unknown> = {
    type: 'DatabaseError',
    message: `database error ${e.code} (message withheld: it can quote values)`,
    code: e.code,
    severity: e.severity,
  };
  for (const key of ['routine', 'schema', 'table', 'column', 'constraint', 'dataType'] as const) {
    if (typeof e[key] === 'string') out[key] = e[key];
  }
  return out;
}

/**
 * JSON logs. Authorization headers are redacted, request lines carry the matched route only,
 * database errors are logged without the values they quote, and no handler logs a full API key or
 * recipient address (maskEmail).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'apiKey', '*.apiKey'],
        censor: '[redacted]',
      },
      serializers: {
        req: serializeRequest,
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        err: serializeError,
      },
    },
    destination,
  );
}
