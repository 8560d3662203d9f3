// The Idempotency-Key header of the operations that queue messages.
import { Type } from '@sinclair/typebox';
import { IDEMPOTENCY_KEY_PATTERN } from '../../http.js';

export const IdempotencyKeyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ pattern: IDEMPOTENCY_KEY_PATTERN, description: '1–120 printable ASCII characters' }),
  ),
});
