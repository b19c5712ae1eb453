import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { LogMailAdapter } from '../../src/infra/mail/log-mail.adapter';
import type { MailMessage } from '../../src/infra/mail/mail.port';

/** The log mail adapter's memory (the default adapter in tests). */
export const mailbox = (app: ParleyApp) => app.get(LogMailAdapter);

/** The token carried by a mailed link (`…#token=<token>`). */
export function tokenOf(text: string): string {
  const m = /#token=([A-Za-z0-9_%-]+)/.exec(text);
  if (!m) throw new Error(`no token link in: ${text.slice(0, 200)}`);
  return decodeURIComponent(m[1]);
}

/** The newest mail of a template to an address, or throws. */
export function lastMail(app: ParleyApp, to: string, template: string): MailMessage {
  const mail = mailbox(app).last(to, template);
  if (!mail) throw new Error(`no ${template} mail to ${to}`);
  return mail;
}

export const mailToken = (app: ParleyApp, to: string, template: string) =>
  tokenOf(lastMail(app, to, template).text);

/** Moves every e-mailed token of a user (of one kind) into the past. */
export async function expireEmailTokens(
  app: ParleyApp,
  userId: string,
  kind: string,
): Promise<void> {
  await app
    .get(DataSource)
    .query(
      `UPDATE email_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND kind = $2`,
      [userId, kind],
    );
}
