// The plain-text bounce formats mailsvc reads, one module per mail system (family). A bounce is
// read by the first format whose intro it has, or by X-Failed-Recipients alone (plain-bounce.ts).
import { communigate } from './communigate.js';
import { courier } from './courier.js';
import { domino } from './domino.js';
import { exchange } from './exchange.js';
import { exchange2003 } from './exchange-2003.js';
import { exim } from './exim.js';
import type { BounceFormat } from './format.js';
import { google } from './google.js';
import { groupwise } from './groupwise.js';
import { imail } from './imail.js';
import { mcafee } from './mcafee.js';
import { mdaemon } from './mdaemon.js';
import { opensmtpd } from './opensmtpd.js';
import { postfix } from './postfix.js';
import { qmail } from './qmail.js';
import { sendmail } from './sendmail.js';
import { verizon } from './verizon.js';
import { yahoo } from './yahoo.js';

export type { BounceFormat } from './format.js';

export const BOUNCE_FORMATS: readonly BounceFormat[] = [
  exim,
  qmail,
  postfix,
  exchange,
  exchange2003,
  sendmail,
  opensmtpd,
  yahoo,
  domino,
  google,
  verizon,
  imail,
  mcafee,
  courier,
  mdaemon,
  communigate,
  groupwise,
];
