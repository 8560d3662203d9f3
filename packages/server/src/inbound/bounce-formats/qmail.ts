// qmail and its descendants (netqmail, vpopmail hosts): "Hi. This is the qmail-send program at
// <host>." then "<address>:" and the reply, qmail's own code as "(#5.1.1)"; the original after
// "--- Below this line is a copy of the message.".
import type { BounceFormat } from './format.js';

export const qmail: BounceFormat = {
  name: 'qmail',
  intro: /^Hi\. This is the qmail-send program/im,
  original: /^--- Below this line is a copy of the message/im,
};
