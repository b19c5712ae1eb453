import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';

/**
 * A task a worker could not finish: it threw (`failure` is what the handler's error carried,
 * see worker-main.ts), ran out of its heap, or overran its time.
 */
export class WorkerTaskError extends Error {
  constructor(
    message: string,
    /** What the handler threw, as it crossed the thread boundary (structured clone). */
    readonly failure?: unknown,
    /** The worker died (out of memory, killed for overrunning): the input was too costly. */
    readonly exhausted = false,
  ) {
    super(message);
  }
}

/** The queue is full: the caller should shed the request (503 with Retry-After). */
export class WorkerPoolBusyError extends Error {}

export interface WorkerPoolOptions {
  /** Threads (default: one per core but one, at least one). */
  size?: number;
  /** Tasks waiting for a thread beyond which `run` refuses (WorkerPoolBusyError). */
  maxQueue?: number;
  /** Heap of each thread: a task that needs more kills only its thread. */
  maxOldGenerationSizeMb?: number;
  /** A task running longer is stopped with its thread. */
  taskTimeoutMs?: number;
}

interface Task {
  input: unknown;
  transfer: ArrayBuffer[];
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

// Running from TypeScript sources (tests): the thread registers a transpile-only loader for
// `.ts` files first (TypeScript is a dev dependency; the production build runs the .js files).
const TS_BOOTSTRAP = `
const { createRequire } = require('node:module');
const { workerData } = require('node:worker_threads');
const req = createRequire(workerData.anchor);
const ts = req('typescript');
const { readFileSync } = require('node:fs');
const options = {
  module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true,
  experimentalDecorators: true, emitDecoratorMetadata: false, sourceMap: false,
};
require.extensions['.ts'] = (m, filename) =>
  m._compile(ts.transpileModule(readFileSync(filename, 'utf8'), { fileName: filename, compilerOptions: options }).outputText, filename);
req(workerData.main);
`;

/**
 * A small pool of worker threads running one handler module (`handlerModule` exports
 * `handle(input)`; worker-main.ts drives it). CPU-heavy work on untrusted input — parsing a
 * 25 MiB delivery — runs there so the event loop keeps answering other requests. Threads start
 * on first use, are replaced when one dies, and never keep the process alive.
 */
export class WorkerPool {
  private readonly size: number;
  private readonly maxQueue: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private closed = false;

  constructor(
    private readonly handlerModule: string,
    private readonly options: WorkerPoolOptions = {},
  ) {
    this.size = Math.max(1, options.size ?? availableParallelism() - 1);
    this.maxQueue = options.maxQueue ?? 32;
  }

  /** Runs `input` through the handler on a thread; `transfer` moves buffers instead of copying. */
  run<T>(input: unknown, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new Error('worker pool closed'));
    if (this.queue.length >= this.maxQueue) return Promise.reject(new WorkerPoolBusyError());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ input, transfer, resolve: resolve as (v: unknown) => void, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('worker pool closed'));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.task === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      if (this.options.taskTimeoutMs) {
        const s = slot;
        slot.timer = setTimeout(() => this.fail(s, 'timed out', true), this.options.taskTimeoutMs);
      }
      slot.worker.postMessage(task.input, task.transfer);
    }
  }

  private spawn(): Slot {
    const main = join(__dirname, 'worker-main');
    const fromSources = __filename.endsWith('.ts');
    const worker = new Worker(fromSources ? TS_BOOTSTRAP : `${main}.js`, {
      eval: fromSources,
      workerData: { main, anchor: __filename, handler: this.handlerModule },
      resourceLimits: this.options.maxOldGenerationSizeMb
        ? { maxOldGenerationSizeMb: this.options.maxOldGenerationSizeMb }
        : undefined,
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const slot: Slot = { worker, task: null, timer: null };
    worker.on('message', (reply: { ok: boolean; output?: unknown; failure?: unknown }) => {
      const task = slot.task;
      if (!task) return;
      this.settle(slot);
      if (reply.ok) task.resolve(reply.output);
      else task.reject(new WorkerTaskError('task failed', reply.failure));
      this.dispatch();
    });
    worker.on('error', (err) => this.fail(slot, err.message, true));
    worker.on('exit', () => this.fail(slot, 'worker exited', true));
    this.slots.push(slot);
    return slot;
  }

  private settle(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
    slot.worker.unref();
  }

  /** The thread died or overran: its task fails, the thread is replaced on demand. */
  private fail(slot: Slot, reason: string, exhausted: boolean): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    const task = slot.task;
    this.settle(slot);
    void slot.worker.terminate();
    task?.reject(new WorkerTaskError(`worker ${reason}`, undefined, exhausted));
    if (!this.closed) this.dispatch();
  }
}
