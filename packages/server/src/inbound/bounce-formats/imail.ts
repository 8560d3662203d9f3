// Ipswitch iMail: the reason then the address on one line ("Unknown user: jane@example.net",
// "Mailbox full: …"), then "Original message follows.".
import type { BounceFormat } from './format.js';

export const imail: BounceFormat = {
  name: 'imail',
  intro:
    /^(?:Unknown user|User mailbox exceeds allowed size|Mailbox full|Unknown host|Host unknown): \S+@\S+/im,
  original: /^Original message follows\./im,
};
