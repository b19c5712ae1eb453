import { GatewayDispatchEvents } from 'discord-api-types/v10';
import { contentFree, type LoggedEvent } from './realtime-event';

const event = (d: object): LoggedEvent => ({
  position: 1,
  id: '1',
  t: GatewayDispatchEvents.MessageCreate,
  guildId: '10',
  channelId: '20',
  userId: null,
  authorId: '30',
  mentionIds: [],
  data: JSON.stringify(d),
});

describe('contentFree', () => {
  it('blanks a message’s content, embeds, attachments and components', () => {
    const out = JSON.parse(
      contentFree(event({ id: '5', content: 'secret', embeds: [{ title: 't' }], tts: false })),
    ) as Record<string, unknown>;
    expect(out).toEqual({
      id: '5',
      content: '',
      embeds: [],
      attachments: [],
      components: [],
      tts: false,
    });
  });

  it('blanks the message a reply answers too, and leaves a deleted one null', () => {
    const reply = event({
      id: '6',
      content: 'answer',
      type: 19,
      referenced_message: { id: '5', content: 'question', embeds: [{ title: 'q' }] },
    });
    expect(JSON.parse(contentFree(reply))).toMatchObject({
      content: '',
      referenced_message: { id: '5', content: '', embeds: [] },
    });
    const orphan = event({ id: '7', content: 'answer', referenced_message: null });
    expect(JSON.parse(contentFree(orphan))).toMatchObject({
      content: '',
      referenced_message: null,
    });
  });
});
