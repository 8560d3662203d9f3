// A send's metadata (DESIGN.md §12): the app's own keys and values, stored with the message for
// its whole retention and returned by the message reads; never rendered into mail.
import { type Static, Type } from '@sinclair/typebox';

import {
  METADATA_KEY_PATTERN,
  METADATA_KEYS_MAX,
  METADATA_VALUE_MAX,
  METADATA_VALUE_PATTERN,
} from '../../metadata.js';

export { METADATA_KEY_PATTERN, METADATA_KEYS_MAX, METADATA_VALUE_MAX, METADATA_VALUE_PATTERN };

const MetadataValue = Type.String({
  maxLength: METADATA_VALUE_MAX,
  pattern: METADATA_VALUE_PATTERN,
  description: 'at most 256 characters, no control characters',
});

export const Metadata = Type.Record(Type.String({ pattern: METADATA_KEY_PATTERN }), MetadataValue, {
  additionalProperties: false,
  maxProperties: METADATA_KEYS_MAX,
  description:
    'your own keys and values, e.g. {"userId": "u_123"}: at most 20 keys of letters, digits, _, . and - (1 to 40 characters), string values of at most 256 characters without control characters or line separators; kept with the message, returned by the reads, never put into the mail',
});
export type Metadata = Static<typeof Metadata>;

export const METADATA_EXAMPLE = { userId: 'u_4821', flow: 'password-reset' } as const;
