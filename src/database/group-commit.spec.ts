import { GroupCommit } from './group-commit';

const tick = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('writes items submitted together as one batch, and answers each caller with its result', async () => {
    const batches: number[][] = [];
    const gc = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        return items.map((i) => i * 10);
      },
      { maxBatch: 100, maxInFlight: 1 },
    );
    const results = await Promise.all([1, 2, 3].map((i) => gc.submit(i)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('queues behind a batch in flight and writes the queue next, within maxBatch', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const gc = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        if (batches.length === 1) await gate;
        return items;
      },
      { maxBatch: 2, maxInFlight: 1 },
    );
    const first = gc.submit(1);
    await tick();
    const rest = [2, 3, 4].map((i) => gc.submit(i));
    await tick();
    expect(batches).toEqual([[1]]); // 2..4 wait for the batch in flight
    release();
    expect(await Promise.all([first, ...rest])).toEqual([1, 2, 3, 4]);
    expect(batches).toEqual([[1], [2, 3], [4]]);
  });

  it('fails one item alone when the writer says so, and every item when the write throws', async () => {
    const gc = new GroupCommit<number, number>(
      async (items) => {
        if (items.includes(99)) throw new Error('down');
        return items.map((i) => (i === 2 ? new Error('bad row') : i));
      },
      { maxBatch: 10, maxInFlight: 1 },
    );
    const settled = await Promise.allSettled([1, 2, 3].map((i) => gc.submit(i)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await expect(gc.submit(99)).rejects.toThrow('down');
    // The queue keeps working after a failed batch.
    await expect(gc.submit(5)).resolves.toBe(5);
  });
});
