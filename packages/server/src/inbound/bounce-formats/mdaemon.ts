// MDaemon: "The attached message had PERMANENT fatal delivery errors!" then a session transcript
// ("--> RCPT To:<address>", "<-- 550 5.1.1 …"): the address is the one the refused RCPT named.
import type { BounceFormat } from './format.js';

export const mdaemon: BounceFormat = {
  name: 'mdaemon',
  intro: /had PERMANENT fatal delivery errors/i,
  original: /^--- End Transcript ---/im,
};
