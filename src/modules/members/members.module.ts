import { Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import { OAuth2Module } from '../oauth2/oauth2.module';
import { MemberEditsService } from './member-edits.service';
import { MembersController } from './members.controller';

/**
 * Reads and edits of guild members for bots and users (Discord's member routes). Apart from the guild core
 * because a bot's access depends on its application's flags (the oauth2 module, which itself
 * builds on the guild core).
 */
@Module({
  imports: [GuildsModule, OAuth2Module],
  controllers: [MembersController],
  providers: [MemberEditsService],
})
export class MembersModule {}
