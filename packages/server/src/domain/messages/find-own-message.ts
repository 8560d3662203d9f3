// A message of the key's environment named by id, as messages/get, cancel and reschedule look it
// up: a malformed id, a missing message and another environment's message are all 404
// message_not_found, worded alike.
import { findMessage } from '../../db/repositories/messages.js';
import { ApiError } from '../../errors.js';
import { ULID_PATTERN } from '../../ids.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';

const MESSAGE_ID = new RegExp(`^msg_${ULID_PATTERN}$`);

export function messageNotFound(): ApiError {
  return new ApiError('message_not_found', 'No message with this id in the key’s environment.', [
    { path: '/messageId', message: 'no such message in this environment' },
  ]);
}

export async function findOwnMessage(deps: Deps, auth: AuthContext, messageId: string) {
  if (!MESSAGE_ID.test(messageId)) throw messageNotFound();
  const row = await findMessage(deps.db, auth.environmentId, messageId);
  if (!row) throw messageNotFound();
  return row;
}
