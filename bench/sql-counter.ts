/**
 * Preloaded (`node --require dist/bench/sql-counter.js dist/src/main.js`) into the one extra
 * Parley process the bench uses to count SQL statements per request — never into a measured
 * server. Every statement any `pg` client of the process sends (the app's TypeORM pool, the
 * notification connection) is counted; the bench reads and resets the count over IPC:
 *   { cmd: 'reset', log?: boolean }  → { count: 0 }
 *   { cmd: 'read' }                  → { count, statements }  (statements: texts, when log was on)
 */
import { Client } from 'pg';

let count = 0;
let logging = false;
const statements: string[] = [];

const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
const original = proto.query;
proto.query = function (this: unknown, ...args: unknown[]) {
  count += 1;
  if (logging && statements.length < 50) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
    statements.push(String(text).replace(/\s+/g, ' ').trim().slice(0, 160));
  }
  return original.apply(this, args);
};

interface Command {
  cmd: 'reset' | 'read';
  log?: boolean;
}

if (process.send) {
  process.on('message', (m: Command) => {
    if (m.cmd === 'reset') {
      count = 0;
      statements.length = 0;
      logging = !!m.log;
    }
    process.send?.({ count, statements: [...statements] });
  });
  // The channel must not keep the app alive on its own (SIGTERM shutdown).
  process.channel?.unref();
}
