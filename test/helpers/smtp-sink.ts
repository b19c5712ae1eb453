import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on 127.0.0.1 (random port) that keeps every raw message it receives. */
export class SmtpSink {
  readonly messages: string[] = [];
  private readonly server: SMTPServer;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          this.messages.push(Buffer.concat(chunks).toString('utf8'));
          callback();
        });
      },
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.server.address() as AddressInfo;
    return `smtp://127.0.0.1:${port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Waits for a message whose headers name `to` (and contain `subject`). */
  async waitFor(to: string, subject?: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(
        (m) => m.includes(to) && (!subject || headerBlock(m).includes(subject)),
      );
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const headerBlock = (raw: string) => raw.split(/\r?\n\r?\n/)[0];

export interface MimePart {
  contentType: string;
  body: string;
}

/** Splits a (multipart) message into decoded leaf parts: base64 and quoted-printable handled. */
export function mimeParts(raw: string): MimePart[] {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\r\n\r\n');
  const headers = head.replace(/\r?\n[ \t]+/g, ' ');
  const type = /^content-type:\s*([^\r\n]+)/im.exec(headers)?.[1] ?? 'text/plain';
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(type)?.[1];
  if (boundary) {
    return body
      .split(`--${boundary}`)
      .slice(1)
      .filter((p) => !p.startsWith('--'))
      .flatMap((p) => mimeParts(p.replace(/^\r?\n/, '')));
  }
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  let decoded = body;
  if (encoding === 'base64')
    decoded = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    decoded = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return [{ contentType: type.split(';')[0].trim().toLowerCase(), body: decoded }];
}
