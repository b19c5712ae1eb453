import type { ParleyApp } from '../../src/app.setup';
import type { Browser, Page } from 'playwright-core';
import { serverPort } from '../helpers/ports';
import { createAdminKey, type TestAdminKey } from '../helpers/admin';
import { createTestApp } from '../helpers/app';
import { launchChromium, openDocs as openSwaggerUi } from './swagger-ui';

const OPERATION = '#operations-Admin-list_admin_api_keys';

/**
 * Swagger UI as the admin console (DESIGN.md §3): a browser opens /docs on the real app, follows
 * the Authorize dialog's instructions for `adminApiKey`, and runs GET /admin/api-keys.
 */
describe('Swagger UI as an admin console (headless Chromium)', () => {
  let app: ParleyApp;
  let browser: Browser;
  let base: string;
  let admin: TestAdminKey;

  beforeAll(async () => {
    const port = await serverPort();
    base = `http://127.0.0.1:${port}`;
    // PUBLIC_URL is the document's server, so "Execute" must reach this very process.
    app = await createTestApp({ env: { PUBLIC_URL: base } });
    await app.listen(port, '127.0.0.1');
    admin = await createAdminKey(app, ['admin_api_key:manage']);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A fresh browser context (no stored authorization) showing Swagger UI. */
  async function openDocs(): Promise<Page> {
    const page = await openSwaggerUi(browser, base);
    await page.locator(OPERATION).waitFor();
    return page;
  }

  /** Expands GET /admin/api-keys, "Try it out" → "Execute"; returns the response panel's status. */
  async function executeListKeys(page: Page): Promise<{ status: string; body: string }> {
    const op = page.locator(OPERATION);
    await op.locator('.opblock-summary-control').click();
    await op.locator('button.try-out__btn').click();
    await op.locator('button.execute').click();
    const live = op.locator('.live-responses-table .response');
    await live.first().waitFor();
    return {
      status: (await live.locator('.response-col_status').first().innerText()).trim(),
      body: await op
        .locator('.live-responses-table .response-col_description pre')
        .first()
        .innerText(),
    };
  }

  it('authorizes with `Admin adm_…` as the dialog explains, then GET /admin/api-keys answers 200', async () => {
    const page = await openDocs();
    await page.locator('.auth-wrapper button.authorize').click();
    const scheme = page.locator('.dialog-ux .auth-container').filter({
      has: page.locator('h4 code', { hasText: /^adminApiKey$/ }),
    });
    // The dialog tells the operator exactly what to paste.
    const help = await scheme.locator('.renderedMarkdown').innerText();
    expect(help).toContain('Admin adm_<key_id>_<secret>');
    expect(help).toContain('the word Admin, one space, then the key');

    await scheme.locator('input[type="text"]').fill(admin.header);
    await scheme.locator('button.authorize').click();
    // Swagger UI swaps Authorize for Logout once it holds the value.
    await scheme.locator('button', { hasText: 'Logout' }).waitFor();
    await page.locator('.dialog-ux .close-modal').click();

    const res = await executeListKeys(page);
    expect(res.status).toBe('200');
    const keys = JSON.parse(res.body) as Array<{ key_id: string }>;
    expect(keys.map((k) => k.key_id)).toContain(admin.keyId);
    expect(res.body).not.toContain(admin.key);
    await page.context().close();
  });

  it('without authorizing, the same request answers 401 UNAUTHORIZED', async () => {
    const page = await openDocs();
    const res = await executeListKeys(page);
    expect(res.status).toBe('401');
    expect(JSON.parse(res.body)).toMatchObject({ code: 'UNAUTHORIZED' });
    await page.context().close();
  });
});
