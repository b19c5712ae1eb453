import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../infra/storage/storage.module';
import { UsersModule } from '../users/users.module';
import { ChannelEntity } from './channel.entity';
import { ChannelsController } from './channels.controller';
import { ChannelsService } from './channels.service';
import { GuildAccessService } from './guild-access.service';
import { GuildMemberEntity } from './guild-member.entity';
import { GuildRoleEntity } from './guild-role.entity';
import { GuildEntity } from './guild.entity';
import { GuildsController } from './guilds.controller';
import { GuildsService } from './guilds.service';
import { MessageEntity } from './message.entity';
import { MessagesService } from './messages.service';

@Module({
  imports: [
    UsersModule,
    StorageModule,
    TypeOrmModule.forFeature([
      GuildEntity,
      GuildRoleEntity,
      GuildMemberEntity,
      ChannelEntity,
      MessageEntity,
    ]),
  ],
  controllers: [GuildsController, ChannelsController],
  providers: [GuildAccessService, GuildsService, ChannelsService, MessagesService],
  exports: [GuildAccessService, GuildsService, ChannelsService, MessagesService],
})
export class GuildsModule {}
