import pino, { type Logger } from 'pino';

/**
 * JSON logs. The router logs only what it chooses (never headers, never the API key, recipients
 * masked); the redaction is a second line of defence.
 */
export function createWrapperLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'mailsvc-wrapper' },
      redact: {
        paths: ['headers', 'authorization', 'apiKey', '*.apiKey', '*.authorization'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export type { Logger };
