import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../infra/jobs/jobs.module';
import { StorageModule } from '../../infra/storage/storage.module';
import { UsersModule } from '../users/users.module';
import { ChannelEntity } from './channel.entity';
import { ChannelsController } from './channels.controller';
import { ChannelsService } from './channels.service';
import { GuildAccessService } from './guild-access.service';
import { GuildBanEntity } from './guild-ban.entity';
import { GuildBansService } from './guild-bans.service';
import { GuildMemberEntity } from './guild-member.entity';
import { GuildRoleEntity } from './guild-role.entity';
import { GuildEntity } from './guild.entity';
import { GuildsController } from './guilds.controller';
import { GuildMembersService } from './guild-members.service';
import { GuildRolesService } from './guild-roles.service';
import { GuildSnapshots } from './guild-snapshots';
import { GuildsService } from './guilds.service';
import { MessageEntity } from './message.entity';
import { MessagePurge } from './message-purge';
import { AttachmentSweeper } from './attachments/attachment-sweeper';
import { AttachmentPurge } from './attachments/attachment-purge';
import { MessagesService } from './messages.service';
import { MessageRenderer } from './message-renderer';
import { MessageModerationController } from './message-moderation.controller';
import { MessageModerationService } from './message-moderation.service';
import { MessageReactionEntity } from './reactions/message-reaction.entity';
import { ReactionCounts } from './reactions/reaction-counts';
import { ReactionsController } from './reactions/reactions.controller';
import { ReactionsService } from './reactions/reactions.service';
import { WebhookMessagesWriter } from './webhook-messages.writer';
import { InteractionMessagesWriter } from './interaction-messages.writer';
import { WebhookMessageEditsWriter } from './webhook-message-edits.writer';
import { AttachmentEntity } from './attachments/attachment.entity';
import { AttachmentLinks } from './attachments/attachment-links';
import { AttachmentStore } from './attachments/attachment-store';
import { MessageFiles } from './attachments/message-files';
import { AttachmentUploadsController } from './attachments/attachment-uploads.controller';
import { AttachmentUploadsService } from './attachments/attachment-uploads.service';
import { UploadLinks } from './attachments/upload-links';
import { AttachmentsController } from './attachments/attachments.controller';
import { AttachmentsService } from './attachments/attachments.service';
import { EditedMessageFileIntake, NewMessageFileIntake } from './attachments/message-file-intakes';

/** Every service of the module is also used by the modules above it (webhooks, oauth2, gateway, admin). */
const SERVICES = [
  GuildAccessService,
  GuildsService,
  GuildMembersService,
  GuildRolesService,
  GuildBansService,
  GuildSnapshots,
  ChannelsService,
  MessagesService,
  MessageRenderer,
  ReactionsService,
  AttachmentSweeper,
  AttachmentPurge,
  InteractionMessagesWriter,
  WebhookMessageEditsWriter,
  AttachmentStore,
  AttachmentLinks,
  NewMessageFileIntake,
  MessageFiles,
  EditedMessageFileIntake,
  AttachmentUploadsService,
];

/** Used inside the module only. */
const INTERNAL = [
  WebhookMessagesWriter,
  MessageModerationService,
  ReactionCounts,
  MessagePurge,
  AttachmentsService,
  UploadLinks,
];

@Module({
  imports: [
    UsersModule,
    StorageModule,
    JobsModule,
    TypeOrmModule.forFeature([
      GuildEntity,
      GuildRoleEntity,
      GuildMemberEntity,
      GuildBanEntity,
      ChannelEntity,
      MessageEntity,
      MessageReactionEntity,
      AttachmentEntity,
    ]),
  ],
  // MessageModerationController first: its `messages/pins` is matched before `messages/:id`.
  controllers: [
    GuildsController,
    MessageModerationController,
    ChannelsController,
    ReactionsController,
    AttachmentsController,
    AttachmentUploadsController,
  ],
  providers: [...SERVICES, ...INTERNAL],
  exports: SERVICES,
})
export class GuildsModule {}
