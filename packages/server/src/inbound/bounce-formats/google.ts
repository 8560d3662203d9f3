// Google's older plain-text bounces: "Delivery to the following recipient failed permanently:"
// then the address, indented, and "Technical details of permanent failure:" with the reply.
import type { BounceFormat } from './format.js';

export const google: BounceFormat = {
  name: 'google',
  intro: /Delivery to the following recipients? failed permanently/i,
  original: /^-+ Original message -+$/im,
};
