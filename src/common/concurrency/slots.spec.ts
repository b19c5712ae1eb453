import { Slots } from './slots';

describe('Slots', () => {
  it('runs at most `size` at a time, the rest in arrival order, and frees a slot on failure', async () => {
    const slots = new Slots(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const job = (i: number, fail = false) =>
      slots.run(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 10));
        order.push(i);
        running -= 1;
        if (fail) throw new Error(`job ${i}`);
        return i;
      });
    const results = await Promise.allSettled([job(1), job(2, true), job(3), job(4), job(5)]);
    expect(peak).toBe(2);
    expect(order).toEqual([1, 2, 3, 4, 5]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });
});
