// Verizon and other Critical Path / Openwave systems: "This Message was undeliverable due to the
// following reason:" then the reason and "<address>"; or "Each of the following recipients was
// rejected by a remote mail server." then "Recipient: <address>" and the SMTP transcript.
import type { BounceFormat } from './format.js';

export const verizon: BounceFormat = {
  name: 'verizon',
  reasonAbove: true,
  intro:
    /This Message was undeliverable due to the following reason|Each of the following recipients was rejected by a remote mail server/i,
};
