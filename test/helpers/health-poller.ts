import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { send } from './http-client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `work` while polling `/v1/health/live` on `port` (one keep-alive connection, every 10 ms,
 * each answer expected 200); the work's result and the health latencies in ms, including the
 * 100 ms after it (what the server does right after answering counts too).
 */
export async function healthLatenciesDuring<T>(
  port: number,
  work: () => Promise<T>,
): Promise<{ result: T; latencies: number[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let done = false;
  const poller = (async () => {
    while (!done) {
      const t0 = performance.now();
      const res = await send({ port, path: '/v1/health/live', agent, timeoutMs: 10_000 });
      latencies.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`/v1/health/live answered ${res.status}`);
      await sleep(10);
    }
  })();
  await sleep(50);
  try {
    const result = await work();
    await sleep(100);
    return { result, latencies };
  } finally {
    done = true;
    await poller;
    agent.destroy();
  }
}

/** The 99th percentile of `values`. */
export function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
}

/** Resident memory of a process, in MiB (Linux). */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}
