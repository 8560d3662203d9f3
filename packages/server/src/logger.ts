import pino, { type Logger } from 'pino';

/**
 * JSON logs. Authorization headers are redacted, request lines carry the path without the
 * query string, and no handler logs a full API key or recipient address (maskEmail).
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
        req: (req: { method: string; url: string; id: string }) => ({
          method: req.method,
          path: req.url.split('?')[0]?.replace(/^\/u\/[^/]+/, '/u/[token]'),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    },
    destination,
  );
}
