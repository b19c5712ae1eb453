import { Injectable, Logger } from '@nestjs/common';
import { EphemeralEvents } from '../../infra/events/ephemeral-events';
import { EventName } from '../../infra/events/realtime-event';
import type { InteractionEntity } from './interaction.entity';
import { InteractionOutcomes } from './interaction-outcomes';
import type { InteractionPayload } from './interaction-payload';
import { InteractionResponses } from './interaction-responses';
import {
  InteractionEndpointClient,
  type InteractionTarget,
} from '../oauth2/interactions-endpoint/interaction-endpoint.client';

/** The application, as delivery reads it: its bot (gateway) or its endpoint (HTTP). */
type DeliveryTarget = InteractionTarget & { botUserId: string };

/**
 * Hands an interaction to its application: a signed POST to its interactions endpoint when it
 * has one (whose 200 body is the answer), else INTERACTION_CREATE to its bot's gateway session —
 * the shard of the guild, on whichever instance holds it (no intent needed). The token rides in
 * the payload, so the gateway event is ephemeral: never written to the event log (a credential
 * at rest) and not replayed on resume, which an interaction 3 seconds old would not outlive.
 */
@Injectable()
export class InteractionDelivery {
  private readonly logger = new Logger('Interactions');

  constructor(
    private readonly ephemeral: EphemeralEvents,
    private readonly outcomes: InteractionOutcomes,
    private readonly responses: InteractionResponses,
    private readonly endpoint: InteractionEndpointClient,
  ) {}

  deliver(row: InteractionEntity, app: DeliveryTarget, payload: InteractionPayload): void {
    this.outcomes.watch(row.id);
    void this.send(row, app, payload).catch((err: Error) => {
      this.logger.warn(`interaction ${row.id} not delivered: ${err.message}`);
      void this.outcomes.fail(row.id, true).catch(() => undefined);
    });
  }

  private async send(
    row: InteractionEntity,
    app: DeliveryTarget,
    payload: InteractionPayload,
  ): Promise<void> {
    if (!app.interactionsEndpointUrl) {
      this.ephemeral.publish({
        t: EventName.InteractionCreate,
        userId: app.botUserId,
        guildId: row.guildId,
        d: payload,
      });
      return;
    }
    const result = await this.endpoint.deliver(app, payload);
    if (result.kind === 'failed') throw new Error(result.reason);
    if (result.kind === 'answered') await this.responses.respondInline(row, result.body);
  }
}
