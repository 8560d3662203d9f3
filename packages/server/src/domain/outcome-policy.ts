// The policies recording a delivery outcome or a report applies, as the repositories take them.
import type { OutcomePolicy } from '../db/outcome-policy.js';
import { BULK_GUARD } from './bulk/reputation-guard.js';
import { BOUNCE_POLICY } from './recipients/bounce-policy.js';

export const OUTCOME_POLICY: OutcomePolicy = { bounce: BOUNCE_POLICY, bulkGuard: BULK_GUARD };
