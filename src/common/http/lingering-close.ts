import type { Socket } from 'node:net';

/** How long a connection answered before its body was read keeps reading (and dropping) it. */
const LINGER_MS = 2_000;

const lingering = new WeakSet<Socket>();

/**
 * Closes the connection of a request answered before its body was read (a refused credential, a
 * rate limit) the way RFC 9112 §9.6 asks: a lingering close. Node would otherwise destroy the
 * socket as soon as the answer is written, while the client is still sending the body it was
 * never asked to stop; the kernel then answers the client's next bytes with a reset, and a
 * client that had not yet read the answer loses it (it sees ECONNRESET or EPIPE instead of the
 * 401/404/429). Here the server half-closes, keeps dropping what arrives — Node's HTTP parser
 * discards the rest of an unread body, so nothing is parsed or kept — and closes the socket when
 * the client closes its side or after LINGER_MS, whichever comes first. The caller sets
 * `Connection: close` on the answer.
 */
export function lingerOnClose(socket: Socket | null | undefined): void {
  if (!socket || lingering.has(socket)) return;
  lingering.add(socket);
  // Node calls destroySoon() once a `Connection: close` response has been written.
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}
