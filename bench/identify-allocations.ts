/**
 * Where an identify's allocations come from (a diagnostic, not a row): the app in this process,
 * one user in one guild, then BENCH_IDENTIFIES identifies over real sockets while V8's sampling
 * heap profiler records every allocation — those collected by GC included — by stack. Prints the
 * functions that allocate the most per identify, by the file they are in.
 *
 *   npm run build && BENCH_DATABASE_URL=postgres://… node dist/bench/identify-allocations.js
 */
import { mkdtempSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createApp } from '../src/app.setup';
import { userWithGuild } from './api';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!databaseUrl) throw new Error('set BENCH_DATABASE_URL');
  const n = Number(process.env.BENCH_IDENTIFIES ?? 1_000);
  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-alloc-')),
      SECRET_KEY: 'b'.repeat(64),
      GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '1000000',
      GATEWAY_MAX_SESSIONS_PER_USER: '10000',
    },
  });
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const reg = await userWithGuild(base, 'alloc', 'alloc');
  const identify = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/gateway?v=10&encoding=json`, {
        perMessageDeflate: false,
      });
      let hello = false;
      ws.on('error', reject);
      ws.on('message', (data: Buffer) => {
        if (!hello) {
          hello = true;
          ws.send(JSON.stringify({ op: 2, d: { token: reg.token, properties: {} } }));
          return;
        }
        if (data.toString().includes('"t":"GUILD_CREATE"')) resolve(ws);
      });
    });
  // Warm up (compiled code, caches), then record.
  for (const ws of await Promise.all(Array.from({ length: 50 }, identify))) ws.close(1000);
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  const sockets: WebSocket[] = [];
  for (let i = 0; i < n; i += 50) {
    sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, identify))));
  }
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as {
    profile: { head: ProfileNode };
  };
  for (const ws of sockets) ws.close(1000);
  // Self sizes by function (and file), across the tree.
  const byFrame = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode) => {
    const f = node.callFrame;
    const file = f.url.replace(/^.*\/node_modules\//, '~/').replace(/^.*\/dist\//, '');
    const key = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const c of node.children) walk(c);
  };
  walk(profile.head);
  console.log(
    `allocated while identifying: ${(total / n / 1024).toFixed(1)} KB per identify (server and client)`,
  );
  for (const [key, size] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    console.log(`${(size / n / 1024).toFixed(2).padStart(8)} KB  ${key}`);
  }
  await app.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
