// Courier without a DSN part: "This is a delivery status notification from <host>, running the
// Courier mail server" then "Your message to the following recipients cannot be delivered:" and
// "<address>:" with the SMTP transcript ("<<< 550 5.1.1 …").
import type { BounceFormat } from './format.js';

export const courier: BounceFormat = {
  name: 'courier',
  intro: /running the Courier mail server|Your message to the following recipients cannot be delivered/i,
};
