// The one timestamp format of the API.
import { Type } from '@sinclair/typebox';

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601, UTC, with milliseconds',
});

export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
