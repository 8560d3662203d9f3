// OpenSMTPD: "This is the MAILER-DAEMON, please DO NOT REPLY to this email." then "An error has
// occurred while attempting to deliver a message for the following list of recipients:" and
// "address: 550 5.1.1 …" per line; the original after "Below is a copy of the original message:".
import type { BounceFormat } from './format.js';

export const opensmtpd: BounceFormat = {
  name: 'opensmtpd',
  intro: /This is the MAILER-DAEMON, please DO NOT REPLY to this e-?mail/i,
  original: /^Below is a copy of the original message/im,
};
