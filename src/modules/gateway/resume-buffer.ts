/** Dispatched frames a session keeps for resuming (Discord keeps about as many)… */
export const MAX_BUFFERED_DISPATCHES = 8_192;
/** …and bytes of them while its client is away (a dropped session keeps no more than this). */
export const MAX_BUFFERED_BYTES_DISCONNECTED = 1024 * 1024;

export interface Sent {
  s: number;
  t: string;
  /** The payload — one string shared by every session the event went to. */
  d: string;
}

/**
 * The dispatches a session sent and its client has not acknowledged, oldest first: what a resume
 * replays. Bounded in frames always, and in bytes while the client is away.
 */
export class ResumeBuffer {
  private sent: Sent[] = [];
  /** Index of the oldest entry still kept (the array is compacted now and then). */
  private head = 0;
  private bytes = 0;

  push(frame: Sent): void {
    this.sent.push(frame);
    this.bytes += frame.d.length;
    if (this.sent.length - this.head > MAX_BUFFERED_DISPATCHES) this.drop(1);
  }

  /** The client acknowledged everything up to `seq` (heartbeat): no need to keep it. */
  acknowledged(seq: number): void {
    let n = 0;
    while (this.head + n < this.sent.length && this.sent[this.head + n].s <= seq) n += 1;
    if (n > 0) this.drop(n);
  }

  /** The frames after `seq`, or null when the first of them is no longer kept. */
  after(seq: number): Sent[] | null {
    const first = this.sent[this.head];
    if (!first || first.s > seq + 1) return null;
    const out: Sent[] = [];
    for (let i = this.head; i < this.sent.length; i++) {
      if (this.sent[i].s > seq) out.push(this.sent[i]);
    }
    return out;
  }

  /** While away, the oldest frames go once they pass the bound (a resume then gets op 9). */
  trimForAbsence(): void {
    let n = 0;
    let bytes = this.bytes;
    while (bytes > MAX_BUFFERED_BYTES_DISCONNECTED && this.head + n < this.sent.length) {
      bytes -= this.sent[this.head + n].d.length;
      n += 1;
    }
    if (n > 0) this.drop(n);
  }

  get size(): { frames: number; bytes: number } {
    return { frames: this.sent.length - this.head, bytes: this.bytes };
  }

  /** Forgets the `n` oldest entries (compacting the array once its dead head is large). */
  private drop(n: number): void {
    for (let i = this.head; i < this.head + n; i++) this.bytes -= this.sent[i].d.length;
    this.head += n;
    if (this.head === this.sent.length) {
      this.sent = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.sent.length) {
      this.sent = this.sent.slice(this.head);
      this.head = 0;
    }
  }
}
