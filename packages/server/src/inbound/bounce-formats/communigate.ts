// CommuniGate Pro: "Failed to deliver to '<address>'" then the module that refused it and its
// words ("ROUTER module(envelope) reports: unknown user account"); the original follows directly.
import type { BounceFormat } from './format.js';

export const communigate: BounceFormat = {
  name: 'communigate',
  intro: /^Failed to deliver to '?</im,
};
