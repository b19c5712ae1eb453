import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GuildsModule } from '../guilds/guilds.module';
import { OAuth2Module } from '../oauth2/oauth2.module';
import { ApplicationCommandCreatesEntity } from './application-command-creates.entity';
import { ApplicationCommandEntity } from './application-command.entity';
import { ApplicationCommandsController } from './application-commands.controller';
import { ApplicationCommandsService } from './application-commands.service';
import { CommandIndexController } from './command-index.controller';
import { CommandIndexService } from './command-index.service';
import { GuildApplicationCommandsController } from './guild-application-commands.controller';

/**
 * Discord's application commands: the routes applications manage them with (global and per
 * guild), the index a member reads, and ApplicationCommandsService for what invokes them.
 */
@Module({
  imports: [
    GuildsModule,
    OAuth2Module,
    TypeOrmModule.forFeature([ApplicationCommandEntity, ApplicationCommandCreatesEntity]),
  ],
  controllers: [
    ApplicationCommandsController,
    GuildApplicationCommandsController,
    CommandIndexController,
  ],
  providers: [ApplicationCommandsService, CommandIndexService],
  exports: [ApplicationCommandsService],
})
export class ApplicationCommandsModule {}
