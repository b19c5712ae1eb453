import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EphemeralEvents } from '../../infra/events/ephemeral-events';
import { EventName } from '../../infra/events/realtime-event';
import type { InteractionEntity } from './interaction.entity';
import { InteractionOutcomes } from './interaction-outcomes';
import type { InteractionPayload } from './interaction-payload';
import { InteractionResponses } from './interaction-responses';

/** What an application's interactions endpoint did with an interaction POSTed to it. */
export type EndpointResult =
  | { kind: 'answered'; body: unknown }
  | { kind: 'deferred' }
  | { kind: 'failed'; reason: string };

/** The signed HTTP POST to an application's `interactions_endpoint_url` (the oauth2 module's). */
export const INTERACTION_ENDPOINT = Symbol('INTERACTION_ENDPOINT');

export interface InteractionEndpoint {
  /** The application's endpoint URL, or null: its interactions go over the gateway. */
  endpointOf(applicationId: string): Promise<string | null>;
  post(applicationId: string, url: string, payload: object): Promise<EndpointResult>;
}

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
    @Optional() @Inject(INTERACTION_ENDPOINT) private readonly endpoint?: InteractionEndpoint,
  ) {}

  deliver(row: InteractionEntity, app: { id: string; botUserId: string }, payload: InteractionPayload): void {
    this.outcomes.watch(row.id);
    void this.send(row, app, payload).catch((err: Error) => {
      this.logger.warn(`interaction ${row.id} not delivered: ${err.message}`);
      void this.outcomes.fail(row.id, true).catch(() => undefined);
    });
  }

  private async send(
    row: InteractionEntity,
    app: { id: string; botUserId: string },
    payload: InteractionPayload,
  ): Promise<void> {
    const url = this.endpoint ? await this.endpoint.endpointOf(app.id) : null;
    if (!url || !this.endpoint) {
      this.ephemeral.publish({
        t: EventName.InteractionCreate,
        userId: app.botUserId,
        guildId: row.guildId,
        d: payload,
      });
      return;
    }
    const result = await this.endpoint.post(app.id, url, payload);
    if (result.kind === 'failed') throw new Error(result.reason);
    if (result.kind === 'answered') await this.responses.respondInline(row, result.body);
  }
}
