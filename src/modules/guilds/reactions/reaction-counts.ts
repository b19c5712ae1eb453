import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { MessageResponse } from '../guild.response';
import type { ReactionResponse } from './reaction.response';

interface CountRow {
  message_id: string;
  emoji: string;
  count: number;
  me: boolean;
}

/**
 * The reactions of messages as REST shows them (Discord's `reactions` array), for a page of
 * messages in one query. Apart from ReactionsService, which writes them, because the messages'
 * reads need it and ReactionsService needs the messages' owner.
 */
@Injectable()
export class ReactionCounts {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Messages with their reactions (one query for the page), `me` for the viewer: for REST reads
   * only, never for events, whose recipients each have their own `me`.
   */
  async attach(messages: MessageResponse[], viewerId: string): Promise<MessageResponse[]> {
    const ids = messages.map((m) => m.id);
    const reactions = await this.of(this.dataSource.manager, ids, viewerId);
    return messages.map((m) => {
      const own = reactions.get(m.id);
      return own ? { ...m, reactions: own } : m;
    });
  }

  /** Per message id (only those with reactions): its reactions, first-added emoji first. */
  private async of(
    manager: EntityManager,
    messageIds: string[],
    viewerId: string,
  ): Promise<Map<string, ReactionResponse[]>> {
    const out = new Map<string, ReactionResponse[]>();
    if (messageIds.length === 0) return out;
    const rows = await manager.query<CountRow[]>(
      `SELECT message_id::text AS message_id, emoji, count(*)::int AS count,
              bool_or(user_id = $2) AS me
         FROM message_reactions WHERE message_id = ANY($1::bigint[])
        GROUP BY message_id, emoji
        ORDER BY message_id, min(created_at), emoji`,
      [messageIds, viewerId],
    );
    for (const row of rows) {
      const list = out.get(row.message_id) ?? [];
      list.push(toReaction(row.emoji, row.count, row.me));
      out.set(row.message_id, list);
    }
    return out;
  }
}

/** Discord's reaction object for a unicode emoji (no super reactions: burst is always 0). */
function toReaction(emoji: string, count: number, me: boolean): ReactionResponse {
  return {
    count,
    count_details: { burst: 0, normal: count },
    me,
    me_burst: false,
    emoji: { id: null, name: emoji },
    burst_colors: [],
  };
}
