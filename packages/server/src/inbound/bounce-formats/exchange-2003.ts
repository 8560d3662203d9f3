// Microsoft Exchange 2000/2003: "Your message did not reach some or all of the intended
// recipients." then "The following recipient(s) could not be reached:" and each address,
// indented, with " on <date>" and the reason below it, ending "<mx.example.net #5.1.1>".
import type { BounceFormat } from './format.js';

export const exchange2003: BounceFormat = {
  name: 'exchange-2003',
  intro: /Your message did not reach some or all of the intended recipients/i,
};
