// Yahoo (and AOL since it joined Yahoo's mail system): "Sorry, we were unable to deliver your
// message to the following address." then "<address>:" and "554: delivery error: dd This user
// doesn't have a yahoo.com account …"; the original after "--- Below this line is a copy of the
// message.".
import type { BounceFormat } from './format.js';

export const yahoo: BounceFormat = {
  name: 'yahoo',
  intro: /Sorry,? we were unable to deliver your message to the following address/i,
  original: /^--- Below this line is a copy of the message/im,
};
