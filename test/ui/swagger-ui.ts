import { existsSync } from 'node:fs';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

// Driving Swagger UI (/docs) the way a person does: expand an operation, "Try it out", type into
// the parameter fields and the body editor, "Execute", read the response panel. Shared by the
// browser suites (`npm run test:ui`); the selectors are Swagger UI 5's own class names.

/** Debian's chromium package; `.ci/run` installs it when missing. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A fresh browser context (no stored authorization) showing Swagger UI at `base`/docs. */
export async function openDocs(browser: Browser, base: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/docs`);
  await page.locator('.opblock').first().waitFor();
  return page;
}

/** What the "Server response" panel shows after "Execute". */
export interface ShownResponse {
  /** The status code cell, as text ("200", "204"…; "Undocumented" when the fetch failed). */
  status: string;
  /** The "Response body" block ('' when there is none, e.g. 204). */
  body: string;
  /** The request URL Swagger UI sent (handy in failure messages). */
  url: string;
}

/** The body shown, parsed as JSON; fails with the status and raw text when it is not JSON. */
export function jsonOf<T = Record<string, unknown>>(res: ShownResponse): T {
  try {
    return JSON.parse(res.body) as T;
  } catch {
    throw new Error(`response ${res.status} from ${res.url} is not JSON: ${res.body}`);
  }
}

/** Swagger UI's DOM id of an operation: `operations-<tag, spaces as _>-<operationId>`. */
export function operationId(tag: string, opId: string): string {
  return `operations-${tag.replace(/\s/g, '_')}-${opId}`;
}

/** One expanded operation in "Try it out" mode. */
export class Operation {
  constructor(readonly root: Locator) {}

  /** Types `value` into the field of parameter `name` (path, query or header). */
  async setParam(
    name: string,
    value: string,
    location?: 'path' | 'query' | 'header',
  ): Promise<void> {
    const where = location ? `[data-param-in="${location}"]` : '';
    const row = this.root.locator(`tr[data-param-name="${name}"]${where}`);
    const select = row.locator('select');
    if ((await select.count()) > 0) await select.selectOption(value);
    else await row.locator('input[type="text"]').fill(value);
  }

  /** The body editor's text (the example Swagger UI pre-filled, or what was typed since). */
  async bodyText(): Promise<string> {
    return this.root.locator('textarea.body-param__text').inputValue();
  }

  /** The body editor's JSON. */
  async body<T = Record<string, unknown>>(): Promise<T> {
    return JSON.parse(await this.bodyText()) as T;
  }

  /**
   * Rewrites the body editor: `edit` gets the pre-filled JSON (a copy) and returns what to type
   * instead, so a test changes only the fields a person would.
   */
  async editBody<T = Record<string, unknown>>(edit: (example: T) => unknown): Promise<void> {
    const next = edit(await this.body<T>());
    await this.root.locator('textarea.body-param__text').fill(JSON.stringify(next, null, 2));
  }

  /** Chooses the request content type (the select above the body editor). */
  async contentType(type: string): Promise<void> {
    await this.root.locator('select.content-type').first().selectOption(type);
  }

  /** "Execute", then waits for the "Server response" panel and reads it. */
  async execute(): Promise<ShownResponse> {
    const clear = this.root.locator('button.btn-clear');
    if ((await clear.count()) > 0) await clear.click();
    await this.root.locator('button.execute').click();
    const live = this.root.locator('.live-responses-table .response');
    await live.first().waitFor();
    const body = live.locator('.response-col_description .highlight-code pre');
    return {
      status: (await live.locator('.response-col_status').first().innerText()).trim(),
      body: (await body.count()) > 0 ? await body.first().innerText() : '',
      url: (await this.root.locator('.request-url pre').first().innerText()).trim(),
    };
  }
}

/** The Swagger UI page and the person's gestures on it. */
export class SwaggerUi {
  constructor(readonly page: Page) {}

  static async open(browser: Browser, base: string): Promise<SwaggerUi> {
    return new SwaggerUi(await openDocs(browser, base));
  }

  /** The operation's block, collapsed or not: `#operations-<Tag>-<operationId>`. */
  operation(tag: string, opId: string): Locator {
    return this.page.locator(`[id="${operationId(tag, opId)}"]`);
  }

  /** Expands the operation (when collapsed) and clicks "Try it out". */
  async tryItOut(tag: string, opId: string): Promise<Operation> {
    const root = this.operation(tag, opId);
    await root.waitFor();
    const summary = root.locator('.opblock-summary-control');
    if ((await summary.getAttribute('aria-expanded')) !== 'true') await summary.click();
    const button = root.locator('button.try-out__btn');
    if (!(await button.innerText()).includes('Cancel')) await button.click();
    return new Operation(root);
  }

  /** The Authorize dialog's block for one security scheme. */
  private scheme(name: string): Locator {
    return this.page.locator('.dialog-ux .auth-container').filter({
      has: this.page.locator('h4 code', { hasText: new RegExp(`^${name}$`) }),
    });
  }

  /** Opens "Authorize", fills the scheme's fields, "Authorize", closes the dialog. */
  private async authorize(name: string, fill: (scheme: Locator) => Promise<void>): Promise<void> {
    await this.page.locator('.auth-wrapper button.authorize').click();
    const scheme = this.scheme(name);
    await fill(scheme);
    await scheme.locator('button.authorize').click();
    // Swagger UI swaps Authorize for Logout once it holds the value.
    await scheme.locator('button', { hasText: 'Logout' }).waitFor();
    await this.page.locator('.dialog-ux .close-modal').click();
  }

  /** An apiKey scheme (sessionToken, botToken, adminApiKey): the value is sent as typed. */
  async authorizeApiKey(name: string, value: string): Promise<void> {
    await this.authorize(name, (scheme) => scheme.locator('input[type="text"]').fill(value));
  }

  /** An HTTP Basic scheme (clientBasic). */
  async authorizeBasic(name: string, username: string, password: string): Promise<void> {
    await this.authorize(name, async (scheme) => {
      await scheme.locator('input[name="username"]').fill(username);
      await scheme.locator('input[name="password"]').fill(password);
    });
  }

  async close(): Promise<void> {
    await this.page.context().close();
  }
}
