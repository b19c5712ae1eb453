import { http } from '../helpers/app';
import { botGuildOnTwoInstances, type BotGuild } from '../helpers/bot-guild';
import { reportOf, runDiscordPy, type BotReport } from '../helpers/discordpy';
import { GatewayClient, type Frame } from '../helpers/gateway-client';

/**
 * An unmodified discord.py 2.2 bot (test/bots/discordpy_interactions_bot.py) answering slash
 * commands, a button and a modal: REST on one instance, its gateway session on the other; the
 * member invokes through `POST /v1/interactions` and watches the answers on their own session.
 */
describe('bots: discord.py application commands, views and modals', () => {
  let setup: BotGuild;
  let member: GatewayClient;
  let running: Promise<{ reports: BotReport[]; code: number | null; stderr: string }>;
  let run: { reports: BotReport[]; code: number | null; stderr: string };
  const ids = new Map<string, string>();

  beforeAll(async () => {
    setup = await botGuildOnTwoInstances();
    member = await GatewayClient.ready(
      `ws://127.0.0.1:${setup.gatewayPort}/gateway`,
      setup.member.token,
    );
    running = runDiscordPy('discordpy_interactions_bot.py', {
      PARLEY_API: `http://127.0.0.1:${setup.restPort}/api/v10`,
      PARLEY_GATEWAY: `ws://127.0.0.1:${setup.gatewayPort}/gateway`,
      BOT_TOKEN: setup.application.botToken,
      GUILD_ID: setup.g.guildId,
      CHANNEL_ID: setup.g.channelId,
    });
    await member.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'py-ready', 60_000);
    const listed = await http(setup.rest)
      .get(`/v1/applications/${setup.application.id}/guilds/${setup.g.guildId}/commands`)
      .set('Authorization', `Bot ${setup.application.botToken}`)
      .expect(200);
    for (const c of listed.body as Array<{ id: string; name: string }>) ids.set(c.name, c.id);
  }, 90_000);

  afterAll(async () => {
    member?.close();
    await running?.catch(() => undefined);
    await setup?.close();
  });

  const post = (body: Record<string, unknown>) =>
    http(setup.rest)
      .post('/v1/interactions')
      .set('Authorization', setup.member.token)
      .send({
        application_id: setup.application.id,
        guild_id: setup.g.guildId,
        channel_id: setup.g.channelId,
        ...body,
      });
  const command = (name: string, options?: unknown[]) =>
    post({ type: 2, data: { id: ids.get(name), name, type: 1, ...(options ? { options } : {}) } });
  const seen = (match: (f: Frame) => boolean, at: number) => member.next(match, 10_000, at);

  it('tree.sync(guild=…) stored the commands, options and choices', async () => {
    expect([...ids.keys()].sort()).toEqual(['confirm', 'form', 'greet', 'slow']);
    const res = await http(setup.rest)
      .get(
        `/v1/applications/${setup.application.id}/guilds/${setup.g.guildId}/commands/${ids.get('greet')}`,
      )
      .set('Authorization', `Bot ${setup.application.botToken}`)
      .expect(200);
    expect(res.body.options[0]).toMatchObject({ name: 'who', type: 3, required: true });
    expect(res.body.options[0].choices.map((c: { value: string }) => c.value)).toEqual([
      'Alice',
      'Bob',
    ]);
  });

  it('a command with a choice is answered with send_message', async () => {
    const at = member.frames.length;
    expect((await command('greet', [{ name: 'who', type: 3, value: 'Bob' }])).status).toBe(204);
    const answer = await seen((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'hello Bob', at);
    expect(answer.d).toMatchObject({
      type: 20,
      interaction: { name: 'greet', user: { id: setup.member.userId } },
    });
  });

  it('defer + followup.send', async () => {
    const at = member.frames.length;
    expect((await command('slow')).status).toBe(204);
    await seen((f) => f.t === 'MESSAGE_CREATE' && (f.d.flags & 128) === 128, at);
    await seen((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'slow done', at);
  });

  it('a View’s button: the click reaches the view, edit_message updates the message', async () => {
    const at = member.frames.length;
    expect((await command('confirm')).status).toBe(204);
    const asked = await seen((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'confirm?', at);
    const button = asked.d.components[0].components[0];
    expect(button).toMatchObject({ type: 2, label: 'Confirm', style: 3 });
    const click = await post({
      type: 3,
      message_id: asked.d.id,
      data: { component_type: 2, custom_id: button.custom_id },
    });
    expect(click.status).toBe(204);
    const edited = await seen((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === asked.d.id, at);
    expect(edited.d).toMatchObject({ content: 'confirmed', components: [] });
  });

  it('a Modal: shown to the member, submitted, on_submit answers', async () => {
    const at = member.frames.length;
    expect((await command('form')).status).toBe(204);
    const modal = await seen((f) => f.t === 'INTERACTION_MODAL_CREATE', at);
    expect(modal.d).toMatchObject({
      title: 'Feedback',
      components: [{ type: 1, components: [{ type: 4, custom_id: 'answer' }] }],
    });
    const submit = await post({
      type: 5,
      data: {
        id: modal.d.id,
        custom_id: modal.d.custom_id,
        components: [
          { type: 1, components: [{ type: 4, custom_id: 'answer', value: 'forty-two' }] },
        ],
      },
    });
    expect(submit.status).toBe(204);
    await seen((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'got forty-two', at);
    run = await running;
    expect(run.reports.filter((r) => r.step === 'error')).toEqual([]);
    expect(reportOf(run, 'greet')).toMatchObject({ who: 'Bob', user: setup.member.userId });
    expect(reportOf(run, 'clicked')).toMatchObject({ user: setup.member.userId });
    expect(reportOf(run, 'submitted')).toMatchObject({ value: 'forty-two' });
    expect(run.code).toBe(0);
  }, 30_000);
});
