import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { UserEntity } from '../users/user.entity';
import { normalizeDraft, urlErrors } from './embeds/embed';
import type { CreateMessageDto } from './dto/create-message.dto';
import type { ListMessagesQueryDto } from './dto/list-messages.dto';
import { GuildAccessService } from './guild-access.service';
import { toMessageResponse } from './guild.mapper';
import type { MessageResponse } from './guild.response';
import { MessageEntity } from './message.entity';
import { Permissions } from './permissions';

export const DEFAULT_MESSAGE_LIMIT = 50;

@Injectable()
export class MessagesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
    private readonly snowflakes: SnowflakeService,
  ) {}

  /**
   * Newest first. `before`/`after` are exclusive id cursors; with `after` alone the page is the
   * `limit` messages right after it (still returned newest first), as in Discord.
   */
  async list(
    userId: string,
    channelId: string,
    query: ListMessagesQueryDto,
  ): Promise<MessageResponse[]> {
    await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL | Permissions.READ_MESSAGE_HISTORY,
    );
    const limit = query.limit ?? DEFAULT_MESSAGE_LIMIT;
    const ascending = query.after !== undefined && query.before === undefined;
    const qb = this.dataSource
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .leftJoinAndSelect('m.author', 'author')
      .where('m.channel_id = :channelId', { channelId })
      .orderBy('m.id', ascending ? 'ASC' : 'DESC')
      .limit(limit);
    if (query.before !== undefined) qb.andWhere('m.id < :before', { before: query.before });
    if (query.after !== undefined) qb.andWhere('m.id > :after', { after: query.after });
    const rows = await qb.getMany();
    if (ascending) rows.reverse();
    return rows.map(toMessageResponse);
  }

  /** Needs VIEW_CHANNEL and SEND_MESSAGES; content or at least one embed. */
  async create(userId: string, channelId: string, dto: CreateMessageDto): Promise<MessageResponse> {
    await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES,
    );
    const badUrls = urlErrors(dto.embeds ?? []);
    if (badUrls.length > 0) throw ApiError.form(badUrls);
    const draft = normalizeDraft({ content: dto.content, embeds: dto.embeds ?? [] });
    if (!draft) throw new ApiError(ErrorCode.EmptyMessage);
    const author = await this.dataSource.getRepository(UserEntity).findOneByOrFail({ id: userId });
    const message = this.dataSource.getRepository(MessageEntity).create({
      id: this.snowflakes.next(),
      channelId,
      authorId: userId,
      webhookId: null,
      webhookName: null,
      webhookAvatar: null,
      content: draft.content ?? '',
      embeds: draft.embeds,
      createdAt: new Date(),
    });
    await this.dataSource.getRepository(MessageEntity).insert(message);
    message.author = author;
    return toMessageResponse(message);
  }
}
