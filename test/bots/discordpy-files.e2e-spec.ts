import { botGuildOnTwoInstances, type BotGuild } from '../helpers/bot-guild';
import { reportOf, runDiscordPy, type BotReport } from '../helpers/discordpy';

/**
 * An unmodified discord.py client (test/bots/discordpy_files_bot.py) sends files with
 * `channel.send(file=discord.File(...))` and `files=[...]`, reads them back with
 * `Attachment.read()` through their signed links, and edits a message down to one of its files.
 */
describe('bots: discord.py sends files', () => {
  let setup: BotGuild;
  let run: { reports: BotReport[]; code: number | null; stderr: string };

  beforeAll(async () => {
    setup = await botGuildOnTwoInstances();
    run = await runDiscordPy('discordpy_files_bot.py', {
      PARLEY_API: `http://127.0.0.1:${setup.restPort}/api/v10`,
      PARLEY_GATEWAY: `ws://127.0.0.1:${setup.gatewayPort}/gateway`,
      BOT_TOKEN: setup.application.botToken,
      CHANNEL_ID: setup.g.channelId,
    });
  }, 150_000);

  afterAll(async () => {
    await setup?.close();
  });

  it('runs every step without an error and exits cleanly', () => {
    expect(run.reports.filter((r) => r.step === 'error')).toEqual([]);
    expect(reportOf(run, 'done')).toEqual({ step: 'done' });
    expect(run.code).toBe(0);
  });

  it('channel.send(file=discord.File(...)) posts the file; Attachment.read() gets the same bytes', () => {
    expect(reportOf(run, 'sent')).toEqual({
      step: 'sent',
      content: 'a file',
      filename: 'hello.txt',
      description: 'greeting',
      content_type: 'text/plain; charset=utf-8',
      size: 22,
      same_bytes: true,
    });
  });

  it('sends several files (an image with its size, a spoiler) and edits down to one', () => {
    expect(reportOf(run, 'files')).toEqual({
      step: 'files',
      names: ['pic.png', 'SPOILER_hidden.bin'],
      width: 2,
      height: 3,
      spoiler: [false, true],
      png_bytes: true,
    });
    expect(reportOf(run, 'edited')).toEqual({ step: 'edited', names: ['pic.png'] });
  });
});
