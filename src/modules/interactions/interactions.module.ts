import { InteractionFileIntake } from './interaction-file-intake';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationCommandsModule } from '../application-commands/application-commands.module';
import { ApplicationCommandsService } from '../application-commands/application-commands.service';
import { GuildsModule } from '../guilds/guilds.module';
import { COMMAND_CATALOG } from './command-catalog.port';
import { OAuth2Module } from '../oauth2/oauth2.module';
import { EphemeralMessages } from './ephemeral-messages';
import { InteractionCredentials } from './interaction-credentials';
import { InteractionDelivery } from './interaction-delivery';
import { EphemeralMessageEntity, InteractionEntity } from './interaction.entity';
import { InteractionFollowups } from './interaction-followups';
import { InteractionInvoker } from './interaction-invoker';
import { InteractionMessages } from './interaction-messages';
import { InteractionOutcomes } from './interaction-outcomes';
import { InteractionPayloads } from './interaction-payload';
import { InteractionResponses } from './interaction-responses';
import { InteractionWebhooksController } from './interaction-webhooks.controller';
import { InteractionsController } from './interactions.controller';

/**
 * Interactions (DESIGN.md "Interactions and application commands", ARCHITECTURE.md §7.10): users
 * invoke, applications answer (gateway or signed HTTP endpoint), state shared in PostgreSQL.
 */
@Module({
  imports: [
    ApplicationCommandsModule,
    GuildsModule,
    OAuth2Module,
    TypeOrmModule.forFeature([InteractionEntity, EphemeralMessageEntity]),
  ],
  controllers: [InteractionsController, InteractionWebhooksController],
  providers: [
    { provide: COMMAND_CATALOG, useExisting: ApplicationCommandsService },
    InteractionCredentials,
    InteractionInvoker,
    InteractionPayloads,
    InteractionDelivery,
    InteractionOutcomes,
    InteractionResponses,
    InteractionMessages,
    EphemeralMessages,
    InteractionFollowups,
    InteractionFileIntake,
  ],
  exports: [InteractionFollowups, InteractionFileIntake],
})
export class InteractionsModule {}
