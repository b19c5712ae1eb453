import type { Caller } from '../../common/auth/caller';
import { redactMessage } from '../../infra/events/realtime-event';
import type { MessageResponse } from './guild.response';

/**
 * Messages as `caller` may read them (Discord's MESSAGE_CONTENT rule, on REST as on the gateway):
 * a bot whose owner did not enable message content reads other users' messages without their
 * content, embeds, attachments and components — except the messages that mention it.
 */
export function readableBy(caller: Caller, messages: MessageResponse[]): MessageResponse[] {
  if (caller.kind !== 'bot' || caller.readsContent !== false) return messages;
  return messages.map((m) => (addressedTo(caller.userId, m) ? m : redactMessage(m)));
}

function addressedTo(userId: string, m: MessageResponse): boolean {
  return m.author.id === userId || m.mentions.some((u) => u.id === userId);
}
