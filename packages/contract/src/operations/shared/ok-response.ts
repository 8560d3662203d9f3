// The answer of an operation that has nothing to say but that it worked.
import { Type } from '@sinclair/typebox';

export const OkResponse = Type.Object({ ok: Type.Literal(true) }, { additionalProperties: false });
