import { Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import { GuildBansController } from './guild-bans.controller';
import { ModerationService } from './moderation.service';

/**
 * Discord's guild bans (`/guilds/{id}/bans`): the routes and their rules, on top of the guild
 * core's GuildBansService. Not the admin API's e-mail/IP/phone bans (`bans/`, `admin/bans/`).
 */
@Module({
  imports: [GuildsModule],
  controllers: [GuildBansController],
  providers: [ModerationService],
})
export class GuildBansModule {}
