import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AttachmentLinks } from './attachments/attachment-links';
import { GuildMembersService } from './guild-members.service';
import { asReply, toMessageResponse } from './guild.mapper';
import type { GuildMemberResponse, MessageMemberResponse, MessageResponse } from './guild.response';
import { MessageEntity } from './message.entity';
import { ReactionCounts } from './reactions/reaction-counts';

/**
 * Messages as REST and the gateway show them: a reply with the message it answers, and the
 * author's and each mentioned user's membership (Discord's `member`, which bot libraries read for
 * roles and permissions); for a REST reader (`viewerId`) also their reactions, with `me` for that
 * reader. A page of messages costs one query each for replies, members and reactions, whatever
 * its length.
 */
@Injectable()
export class MessageRenderer {
  constructor(
    private readonly members: GuildMembersService,
    private readonly reactions: ReactionCounts,
    private readonly links: AttachmentLinks,
  ) {}

  async render(
    m: EntityManager,
    guildId: string,
    rows: MessageEntity[],
    viewerId?: string,
  ): Promise<MessageResponse[]> {
    const [referenced, members] = await Promise.all([
      this.referencedBy(m, rows),
      this.members.membersAmong(m, guildId, peopleOf(rows)),
    ]);
    const out = rows.map((r) => {
      const message = toMessageResponse(r, this.links);
      if (r.referenceId) {
        asReply(message, guildId, r.referenceId, referenced.get(r.referenceId) ?? null);
      }
      return withMembers(message, members);
    });
    return viewerId === undefined ? out : this.withReactions(out, viewerId);
  }

  /** Messages with their reactions as `viewerId` sees them (REST only: events carry none). */
  withReactions(messages: MessageResponse[], viewerId: string): Promise<MessageResponse[]> {
    return this.reactions.attach(messages, viewerId);
  }

  /** The messages replies answer, by id, as REST shows them (without their own members). */
  private async referencedBy(
    m: EntityManager,
    rows: MessageEntity[],
  ): Promise<Map<string, MessageResponse>> {
    const ids = [...new Set(rows.flatMap((r) => (r.referenceId ? [r.referenceId] : [])))];
    if (ids.length === 0) return new Map();
    const found = await m
      .getRepository(MessageEntity)
      .createQueryBuilder('msg')
      .leftJoinAndSelect('msg.author', 'author')
      .where('msg.id IN (:...ids)', { ids })
      .getMany();
    return new Map(found.map((msg) => [msg.id, toMessageResponse(msg, this.links)]));
  }
}

/** The users whose membership the messages show: their authors and whom they mention. */
function peopleOf(rows: MessageEntity[]): string[] {
  const ids = new Set<string>();
  for (const r of rows) {
    if (r.authorId && !r.webhookId) ids.add(r.authorId);
    for (const u of r.mentions) ids.add(u.id);
  }
  return [...ids];
}

/**
 * Sets `member` on a user's message and on each mention, from `members` (by user id); a webhook's
 * message and a former member have none.
 */
export function withMembers(
  out: MessageResponse,
  members: ReadonlyMap<string, GuildMemberResponse>,
): MessageResponse {
  const author = out.webhook_id ? undefined : members.get(out.author.id);
  if (author) out.member = onMessage(author);
  out.mentions = out.mentions.map((u) => {
    const member = members.get(u.id);
    return member ? { ...u, member: onMessage(member) } : u;
  });
  return out;
}

/** Discord's member on a message: the member object without its user. */
function onMessage(member: GuildMemberResponse): MessageMemberResponse {
  const { user: _user, ...rest } = member;
  return rest;
}
