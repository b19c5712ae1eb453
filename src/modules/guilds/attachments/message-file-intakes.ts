import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ParleyRequest } from '../../../common/auth/caller';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import type { FileIntake } from '../../../common/http/multipart';
import type { FileIntakeOpener } from '../../../common/http/route-policy';
import { GuildAccessService } from '../guild-access.service';
import { MessageEntity } from '../message.entity';
import { Permissions } from '../permissions';
import { AttachmentStore, type ReceivedFile } from './attachment-store';

/** The caller and channel of a `/channels/{channel_id}/…` request. */
function callerAndChannel(req: ParleyRequest): { userId: string; channelId: string } {
  const channelId = (req.params as Record<string, string | undefined>).channel_id;
  if (!req.caller || req.caller.kind === 'admin' || !channelId || !/^\d{1,20}$/.test(channelId)) {
    throw new ApiError(ErrorCode.UnknownChannel);
  }
  return { userId: req.caller.userId, channelId };
}

const POST_FILES = Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES | Permissions.ATTACH_FILES;

/**
 * Files of a new message (`POST /channels/{channel_id}/messages`): the caller needs
 * VIEW_CHANNEL, SEND_MESSAGES and ATTACH_FILES there before a byte is read.
 */
@Injectable()
export class NewMessageFileIntake implements FileIntakeOpener {
  constructor(
    private readonly access: GuildAccessService,
    private readonly store: AttachmentStore,
  ) {}

  async open(req: ParleyRequest): Promise<FileIntake<ReceivedFile>> {
    const { userId, channelId } = callerAndChannel(req);
    const access = await this.access.requireChannelPermission(userId, channelId, POST_FILES);
    return this.store.intakeFor({ channelId, guildId: access.guildId, uploaderId: userId });
  }
}

/**
 * Files added by an edit (`PATCH /channels/{channel_id}/messages/{message_id}`): only the
 * message's author, holding VIEW_CHANNEL and ATTACH_FILES, before a byte is read.
 */
@Injectable()
export class EditedMessageFileIntake implements FileIntakeOpener {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
    private readonly store: AttachmentStore,
  ) {}

  async open(req: ParleyRequest): Promise<FileIntake<ReceivedFile>> {
    const { userId, channelId } = callerAndChannel(req);
    const messageId = (req.params as Record<string, string | undefined>).message_id ?? '';
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL | Permissions.ATTACH_FILES,
    );
    const message = /^\d{1,20}$/.test(messageId)
      ? await this.dataSource.getRepository(MessageEntity).findOne({
          select: { id: true, authorId: true, webhookId: true },
          where: { id: messageId, channelId },
        })
      : null;
    if (!message) throw new ApiError(ErrorCode.UnknownMessage);
    if (message.webhookId !== null || message.authorId !== userId) {
      throw new ApiError(ErrorCode.CannotEditOthersMessage);
    }
    return this.store.intakeFor({ channelId, guildId: access.guildId, uploaderId: userId });
  }
}
