import { Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import { RolesController } from './roles.controller';
import { RolesService } from './roles.service';

/** Discord's role routes: the rules (hierarchy, grants) on top of the guild core's role writer. */
@Module({
  imports: [GuildsModule],
  controllers: [RolesController],
  providers: [RolesService],
})
export class RolesModule {}
