import { EventName, type RealtimeEvent } from '../../../infra/events/realtime-event';
import type { GuildMemberResponse } from '../guild.response';

/** Where a reaction change happened (every reaction event names its message this way). */
export interface ReactionPlace {
  guildId: string;
  channelId: string;
  messageId: string;
}

const emojiOf = (name: string) => ({ id: null, name });

/**
 * Discord's reaction events. `channelId` is set so that only members who see the channel get
 * them; none names a user for the gateway (they are not about anyone's membership).
 */
function reactionEvent(t: EventName, place: ReactionPlace, d: object): RealtimeEvent {
  return {
    t,
    guildId: place.guildId,
    channelId: place.channelId,
    d: { ...d, channel_id: place.channelId, message_id: place.messageId, guild_id: place.guildId },
  };
}

export function reactionAdded(
  place: ReactionPlace,
  emoji: string,
  member: GuildMemberResponse,
  messageAuthorId: string | null,
): RealtimeEvent {
  return reactionEvent(EventName.MessageReactionAdd, place, {
    user_id: member.user.id,
    member,
    emoji: emojiOf(emoji),
    ...(messageAuthorId ? { message_author_id: messageAuthorId } : {}),
    burst: false,
    burst_colors: [],
    type: 0,
  });
}

export function reactionRemoved(
  place: ReactionPlace,
  emoji: string,
  userId: string,
): RealtimeEvent {
  return reactionEvent(EventName.MessageReactionRemove, place, {
    user_id: userId,
    emoji: emojiOf(emoji),
    burst: false,
    type: 0,
  });
}

export function reactionsRemovedAll(place: ReactionPlace): RealtimeEvent {
  return reactionEvent(EventName.MessageReactionRemoveAll, place, {});
}

export function reactionsRemovedForEmoji(place: ReactionPlace, emoji: string): RealtimeEvent {
  return reactionEvent(EventName.MessageReactionRemoveEmoji, place, { emoji: emojiOf(emoji) });
}
