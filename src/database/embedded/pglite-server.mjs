// Embedded PostgreSQL (PGlite) served over the PostgreSQL wire protocol on loopback, so the app
// talks to it through the ordinary `pg` driver (one code path for both databases).
//
// Runs as a child process of the API (see embedded-postgres.ts): PGlite executes queries
// synchronously inside WASM, so keeping it off the API's event loop lets both cores work.
//
// PGlite has one session. pglite-socket's own queue interleaves messages of different connections
// between Parse and Sync, so this server hands the database to one connection at a time (a lease):
// a connection keeps it from its first message until PostgreSQL reports ReadyForQuery with status
// 'I' (idle, no open transaction). Concurrent transactions are therefore serialized, never mixed.
import { createServer } from 'node:net';
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';

const READY_IDLE = [0x5a, 0, 0, 0, 5, 0x49]; // 'Z' len=5 'I'
const TERMINATE = 0x58; // 'X'

class LeaseQueue {
  constructor(db) {
    this.db = db;
    this.holder = null;
    this.waiters = [];
  }

  acquire(id) {
    if (this.holder === null) {
      this.holder = id;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => this.waiters.push({ id, resolve, reject }));
  }

  release(id) {
    if (this.holder !== id) return;
    const next = this.waiters.shift();
    this.holder = next ? next.id : null;
    if (next) next.resolve();
  }

  async enqueue(id, message, onData) {
    if (this.holder !== id) await this.acquire(id);
    if (message[0] === TERMINATE) {
      await this.rollbackIfNeeded();
      this.release(id);
      return 0;
    }
    const tail = [];
    let bytes = 0;
    await this.db.runExclusive(() =>
      this.db.execProtocolRawStream(message, {
        onRawData: (chunk) => {
          bytes += chunk.length;
          for (let i = Math.max(0, chunk.length - READY_IDLE.length); i < chunk.length; i++) {
            tail.push(chunk[i]);
          }
          if (tail.length > READY_IDLE.length) tail.splice(0, tail.length - READY_IDLE.length);
          onData(chunk);
        },
      }),
    );
    if (tail.length === READY_IDLE.length && tail.every((b, i) => b === READY_IDLE[i])) {
      this.release(id);
    }
    return bytes;
  }

  clearQueueForHandler(id) {
    this.waiters = this.waiters.filter((w) => {
      if (w.id !== id) return true;
      w.reject(new Error('connection closed'));
      return false;
    });
  }

  async clearTransactionIfNeeded(id) {
    if (this.holder !== id) return;
    await this.rollbackIfNeeded();
    this.release(id);
  }

  async rollbackIfNeeded() {
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
  }
}

async function main() {
  const dataDir = process.env.PGLITE_DATA_DIR;
  if (!dataDir) throw new Error('PGLITE_DATA_DIR is required');
  if (dataDir !== 'memory://') mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create({
    dataDir,
    extensions: { pgcrypto },
    // Modest memory: the defaults are sized for a dedicated server, this one shares a laptop.
    // Measured idle RSS of this process: ~500 MB with PGlite's defaults, ~350 MB with these.
    postgresqlconf: [
      'shared_buffers = 8MB',
      'work_mem = 2MB',
      'maintenance_work_mem = 16MB',
      'wal_buffers = 1MB',
      'max_connections = 10',
    ],
  });
  await db.exec('CREATE EXTENSION IF NOT EXISTS pgcrypto');
  const queue = new LeaseQueue(db);
  const handlers = new Set();
  const server = createServer((socket) => {
    const handler = new PGLiteSocketHandler({ queryQueue: queue, closeOnDetach: true });
    handlers.add(handler);
    const drop = () => handlers.delete(handler);
    handler.addEventListener('close', drop);
    handler.addEventListener('error', drop);
    handler.attach(socket).catch(() => socket.destroy());
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(process.env.PGLITE_PORT ?? 0), '127.0.0.1', resolve);
  });
  const { port } = server.address();
  const shutdown = async () => {
    server.close();
    for (const h of handlers) await h.detach(true).catch(() => undefined);
    await db.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  // The parent owns this process: when it goes away, so do we.
  process.on('disconnect', shutdown);
  if (process.send) process.send({ type: 'ready', port });
  else console.log(`pglite listening on 127.0.0.1:${port}`);
}

main().catch((err) => {
  if (process.send) process.send({ type: 'error', message: String(err?.stack ?? err) });
  console.error(err);
  process.exit(1);
});
