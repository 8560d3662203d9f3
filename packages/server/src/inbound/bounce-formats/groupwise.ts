// Novell/Micro Focus GroupWise: "The message that you sent was undeliverable to the following:"
// then the recipient's local part and the reason in parentheses ("clerk.smith (User not on post
// office)"); no full address, so the finding is about the message's only recipient.
import type { BounceFormat } from './format.js';

export const groupwise: BounceFormat = {
  name: 'groupwise',
  namesNoAddress: true,
  intro: /The message that you sent was undeliverable to the following/i,
  original: /^Possibly truncated original message follows/im,
};
