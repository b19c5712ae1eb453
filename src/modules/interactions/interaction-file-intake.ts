import { Injectable } from '@nestjs/common';
import type { ParleyRequest } from '../../common/auth/caller';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { FileIntake } from '../../common/http/multipart';
import type { FileIntakeOpener } from '../../common/http/route-policy';
import { AttachmentStore, type ReceivedFile } from '../guilds/attachments/attachment-store';
import { InteractionEntity } from './interaction.entity';

/**
 * Files of an interaction's messages (its callback, follow-ups, edits through its webhook): the
 * token in the path was checked by the caller guard; they go to the interaction's channel.
 */
@Injectable()
export class InteractionFileIntake implements FileIntakeOpener {
  constructor(private readonly store: AttachmentStore) {}

  open(req: ParleyRequest): Promise<FileIntake<ReceivedFile>> {
    const interaction = req.routeCredential?.value;
    if (!(interaction instanceof InteractionEntity)) {
      return Promise.reject(new ApiError(ErrorCode.UnknownInteraction));
    }
    return Promise.resolve(this.forInteraction(interaction));
  }

  forInteraction(interaction: InteractionEntity): FileIntake<ReceivedFile> {
    return this.store.intakeFor({
      channelId: interaction.channelId,
      guildId: interaction.guildId,
      uploaderId: null,
    });
  }
}
