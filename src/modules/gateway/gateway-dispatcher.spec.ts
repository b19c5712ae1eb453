import type { EphemeralEvents } from '../../infra/events/ephemeral-events';
import type { EventListener, EventLog } from '../../infra/events/event-log';
import type { LoggedEvent } from '../../infra/events/realtime-event';
import type { GuildSnapshots } from '../guilds/guild-snapshots';
import type { GatewayConnection } from './gateway-connection';
import { GatewayDispatcher } from './gateway-dispatcher';
import { GatewaySession } from './gateway-session';
import { GatewayDispatchEvents as E } from './protocol';

const GUILD = '100';

function message(position: number): LoggedEvent {
  return {
    position,
    id: String(position),
    t: E.MessageCreate,
    guildId: GUILD,
    channelId: '200',
    userId: null,
    authorId: '9',
    mentionIds: [],
    data: `{"id":"${position}"}`,
  };
}

/** The dispatcher on a log whose deliveries the test makes. */
function dispatcherOnLog(): { dispatcher: GatewayDispatcher; deliver: EventListener } {
  let listener: EventListener = () => undefined;
  const log = {
    subscribe: (l: EventListener) => {
      listener = l;
      return () => undefined;
    },
  } as unknown as EventLog;
  const ephemeral = { subscribe: () => undefined } as unknown as EphemeralEvents;
  const dispatcher = new GatewayDispatcher(log, {} as GuildSnapshots, ephemeral);
  dispatcher.onApplicationBootstrap();
  return { dispatcher, deliver: (events) => listener(events) };
}

/** A session taken over at log position 10, sequence 5: the state its checkpoint holds. */
function takenOver(): GatewaySession {
  const session = new GatewaySession(
    'a'.repeat(32),
    {
      userId: '1',
      bot: false,
      applicationId: null,
      credential: { scheme: 'session', credential: 'x' },
      tags: [],
    },
    0,
    [0, 1],
    50,
  );
  session.startAt(10, 5);
  session.follow(GUILD, true);
  session.detach();
  return session;
}

describe('GatewayDispatcher', () => {
  it('numbers a taken-over session’s replay before the live events that arrived while it was read', () => {
    const { dispatcher, deliver } = dispatcherOnLog();
    const session = takenOver();
    dispatcher.register(session);
    // While the log after the checkpoint is read from PostgreSQL, this instance's log goes on:
    // one event the read will also return, one after it.
    deliver([message(12), message(13)]);
    dispatcher.replay(session, [message(11), message(12)]);

    const frames = session.framesAfter(5)!.map((f) => [f.s, f.d]);
    expect(frames).toEqual([
      [6, '{"id":"11"}'],
      [7, '{"id":"12"}'],
      [8, '{"id":"13"}'],
    ]);
  });

  it('routes a guild’s events to the sessions following it, each once and in order', () => {
    const { dispatcher, deliver } = dispatcherOnLog();
    const session = takenOver();
    const sent: number[] = [];
    session.attach({
      open: true,
      sendDispatch: (s: number) => void sent.push(s),
    } as unknown as GatewayConnection);
    dispatcher.register(session);
    dispatcher.replay(session, []);
    deliver([message(11), message(11), message(12)]);
    expect(sent).toEqual([6, 7]);
    expect(dispatcher.sessionsOf(GUILD).has(session)).toBe(true);
  });
});
