/**
 * Group commit in the application: items submitted while earlier batches are being written are
 * written together in the next batch (one statement, one commit), and each caller's promise
 * settles only after its batch committed. With nothing in flight an item is written on the next
 * turn of the event loop, so a quiet server adds no latency; under load, N concurrent writers
 * share a handful of commits instead of paying N.
 *
 * `write` returns one result per item, in order: a value, or an Error for that item alone.
 */
export class GroupCommit<T, R> {
  private queue: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly write: (items: T[]) => Promise<Array<R | Error>>,
    private readonly options: { maxBatch: number; maxInFlight: number },
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0)
      return;
    this.scheduled = true;
    // setImmediate: every request that arrived in the same I/O turn joins this batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    this.inFlight++;
    try {
      const results = await this.write(batch.map((b) => b.item));
      batch.forEach((b, i) => {
        const r = results[i];
        if (r instanceof Error) b.reject(r);
        else b.resolve(r);
      });
    } catch (err) {
      for (const b of batch) b.reject(err);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}
