/** One e-mail, already rendered. `link` is the call-to-action URL (it carries a secret token). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The template that produced it (e.g. `verify`, `reset`), for logs and tests. */
  template: string;
  link?: string;
}

/** Injection token of the outgoing mail adapter (SMTP or log). */
export const MAIL_PORT = Symbol('MAIL_PORT');

export interface MailPort {
  send(message: MailMessage): Promise<void>;
}
