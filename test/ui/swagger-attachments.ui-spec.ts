import type { Browser } from 'playwright-core';
import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { createGuild, type TestGuild } from '../helpers/guild-factories';
import { serverPort } from '../helpers/ports';
import { jsonOf, launchChromium, SwaggerUi } from './swagger-ui';

/**
 * A person posts a message with a file from Swagger UI (issue 30): *Channels → POST
 * /v1/channels/{channel_id}/messages*, content type `multipart/form-data` — the form shows
 * `payload_json` pre-filled from the JSON example and `files[n]` file pickers —, pick a file,
 * Execute: 201, the message carries the file, and its signed link downloads it.
 */
describe('Swagger UI posts a message with a file (headless Chromium)', () => {
  let app: ParleyApp;
  let browser: Browser;
  let base: string;
  let owner: TestUser;
  let g: TestGuild;

  beforeAll(async () => {
    const port = await serverPort();
    base = `http://127.0.0.1:${port}`;
    app = await createTestApp({ env: { PUBLIC_URL: base } });
    await app.listen(port, '127.0.0.1');
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('multipart/form-data with payload_json and files[0]: 201 with the attachment', async () => {
    const ui = await SwaggerUi.open(browser, base);
    await ui.authorizeApiKey('sessionToken', owner.token);
    const op = await ui.tryItOut('Channels', 'create_message');
    await op.setParam('channel_id', g.channelId, 'path');
    await op.contentType('multipart/form-data');
    const payload = op.root.locator('tr[data-property-name="payload_json"] input[type="text"]');
    const prefilled = JSON.parse(await payload.inputValue()) as Record<string, unknown>;
    expect(prefilled).toHaveProperty('content');
    await payload.fill(JSON.stringify({ content: 'from Swagger UI' }));
    await op.root.locator('tr[data-property-name="files[0]"] input[type="file"]').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('hi there\n'),
    });
    const shown = await op.execute();
    expect(shown.status).toBe('201');
    const message = jsonOf<{ content: string; attachments: Array<Record<string, unknown>> }>(shown);
    expect(message.content).toBe('from Swagger UI');
    expect(message.attachments).toHaveLength(1);
    expect(message.attachments[0]).toMatchObject({
      filename: 'notes.txt',
      content_type: 'text/plain; charset=utf-8',
      size: 9,
    });
    const url = new URL(message.attachments[0].url as string);
    const download = await http(app).get(url.pathname + url.search);
    expect(download.status).toBe(200);
    expect(download.text).toBe('hi there\n');
    await ui.close();
  }, 120_000);
});
