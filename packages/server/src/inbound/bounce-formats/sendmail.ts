// Sendmail without a DSN part, and the older AOL and other Sendmail-based systems: "The original
// message was received at …" then "----- The following addresses had permanent fatal errors -----"
// and "<address>" alone on a line, with "(reason: 550 5.1.1 …)" or the session transcript.
import type { BounceFormat } from './format.js';

export const sendmail: BounceFormat = {
  name: 'sendmail',
  intro: /-+ The following addresses had permanent fatal errors -+/i,
  original: /^ *-+ (?:Original message follows|Returned message|Message header follows) -+/im,
};
