// McAfee (MXLogic) email protection: "--- The following addresses had delivery problems ---" then
// "<address>   (5.1.1 <address>... User unknown)".
import type { BounceFormat } from './format.js';

export const mcafee: BounceFormat = {
  name: 'mcafee',
  intro: /-+ The following addresses had delivery problems -+/i,
  original: /^-+ Original message -+/im,
};
