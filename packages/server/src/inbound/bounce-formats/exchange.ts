// Microsoft Exchange 2007 and later, and Exchange Online, in their plain-text form: "Delivery has
// failed to these recipients or groups:" then each address and the reason, the remote server's
// reply with "#5.1.1" in angle brackets ("<mx.example.net #5.1.1>").
import type { BounceFormat } from './format.js';

export const exchange: BounceFormat = {
  name: 'exchange',
  intro: /^Delivery has failed to these recipients or groups/im,
  original: /^Original message headers:/im,
};
