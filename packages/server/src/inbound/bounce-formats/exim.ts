// Exim (and GMX, whose mail servers run it): "This message was created automatically by mail
// delivery software." then the failed addresses, indented, each with the remote server's reply;
// the original after "------ This is a copy of the message, including all the headers. ------".
import type { BounceFormat } from './format.js';

export const exim: BounceFormat = {
  name: 'exim',
  intro: /This message was created automatically by mail delivery software/i,
  original: /^-+ This is a copy of the message/im,
};
