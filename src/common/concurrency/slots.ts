/**
 * At most `size` pieces of work at a time; the rest wait their turn, first come first served.
 * For bursts that would otherwise all be in flight at once (a reconnect storm's identifies): the
 * work done is the same, but what it allocates meanwhile — and the memory high-water mark the
 * process keeps afterwards — is bounded.
 */
export class Slots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.used < this.size) this.used += 1;
    // A slot is handed over by the work that releases it (`used` stays as it is).
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.used -= 1;
    }
  }

  /** Work running and waiting (diagnostics). */
  get load(): { running: number; waiting: number } {
    return { running: this.used, waiting: this.waiting.length };
  }
}
