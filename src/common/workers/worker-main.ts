import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

/** What a handler module run by a WorkerPool exports. */
export interface WorkerHandler {
  handle(input: unknown): unknown;
}

/**
 * A worker thread of WorkerPool (worker-pool.ts): loads the handler module named in workerData
 * and answers each message with `{ok, output}`, or `{ok: false, failure}` when the handler threw
 * (its message only: a handler that has errors to report returns them as its output).
 */
const { handler } = workerData as { handler: string };

// Background work: when the cores are busy, the event loop's thread comes first. On Linux the
// nice value is per thread, so this lowers only this worker thread (elsewhere it may apply to the
// process or fail: then it is left as it is).
if (process.platform === 'linux') {
  try {
    setPriority(constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not permitted here: the thread keeps the process's priority.
  }
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mod = require(handler) as WorkerHandler;

parentPort!.on('message', (input: unknown) => {
  try {
    const output = mod.handle(input);
    parentPort!.postMessage({ ok: true, output });
  } catch (err) {
    parentPort!.postMessage({ ok: false, failure: { message: (err as Error)?.message } });
  }
});
