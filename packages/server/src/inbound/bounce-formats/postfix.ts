// Postfix without a DSN part: "This is the mail system at host <host>." then
// "<address>: host <mx> said: 550 5.1.1 … (in reply to RCPT TO command)"; the original after
// "--- Undelivered message follows ---" (or "Undelivered message headers").
import type { BounceFormat } from './format.js';

export const postfix: BounceFormat = {
  name: 'postfix',
  intro: /^This is the mail system at host/im,
  original: /^-+ Undelivered message (?:follows|headers)/im,
};
