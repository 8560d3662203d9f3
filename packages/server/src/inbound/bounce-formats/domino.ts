// HCL (IBM, Lotus) Domino / Notes: "Your message … was not delivered to: <address> because:
// User <name> (<address>) not listed in Domino Directory" — no reply code, the words decide.
import type { BounceFormat } from './format.js';

export const domino: BounceFormat = {
  name: 'domino',
  intro: /^[ \t]*was not delivered to:/im,
};
