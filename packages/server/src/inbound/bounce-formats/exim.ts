// Exim (and GMX and web.de, whose mail servers run it, also in German): "This message was created
// automatically by mail delivery software." ("Diese Nachricht wurde automatisch vom Mail-System
// erstellt.") then the failed addresses, each with the remote server's reply; the original after
// "------ This is a copy of the message, including all the headers. ------" or GMX's
// "--- The header of the original message is following. ---".
import type { BounceFormat } from './format.js';

export const exim: BounceFormat = {
  name: 'exim',
  intro:
    /This message was created automatically by mail delivery software|Diese Nachricht wurde automatisch vom Mail-System erstellt/i,
  original:
    /^-+ (?:This is a copy of the message|The header of the original message is following|Es folgt der Header der urspr)/im,
};
