import { Injectable } from '@nestjs/common';
import { EventTransport } from './event-transport';
import type { LoggedEvent, RealtimeEvent } from './realtime-event';

/**
 * Events that are not state (TYPING_START; presences): never stored, not numbered, not replayed
 * on resume — a typing indicator is worth something for seconds, and losing one while Redis is
 * away costs nothing. They reach every instance's gateway through the transport (Redis pub/sub,
 * or this process), routed to sessions by the same rules as the log's events, and are sent
 * without a sequence number (`s: null`) so that resuming, on any instance, never counts them.
 */
@Injectable()
export class EphemeralEvents {
  constructor(private readonly transport: EventTransport) {}

  publish(event: RealtimeEvent): void {
    this.transport.sendEphemeral({
      position: 0,
      id: '',
      t: event.t,
      guildId: event.guildId ?? null,
      channelId: event.channelId ?? null,
      userId: event.userId ?? null,
      authorId: event.authorId ?? null,
      mentionIds: event.mentionIds ?? null,
      data: JSON.stringify(event.d),
    });
  }

  subscribe(listener: (event: LoggedEvent) => void): void {
    this.transport.onEphemeral(listener);
  }
}
