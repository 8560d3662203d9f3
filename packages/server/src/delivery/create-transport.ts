import type { Config } from '../config.js';
import { captureTransport, inboxDir } from './transports/capture.js';
import { smtpTransport } from './transports/smtp.js';
import type { Transport } from './transports/transport.js';

/** SMTP when MAILSVC_SMTP_URL is set, else the capture transport (the dev inbox). */
export function createTransport(config: Config): Transport {
  return config.MAILSVC_SMTP_URL
    ? smtpTransport({ url: config.MAILSVC_SMTP_URL, poolSize: config.MAILSVC_SMTP_POOL_SIZE })
    : captureTransport(inboxDir(config.dataDir));
}
