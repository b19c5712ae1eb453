// Every project's global set-up runs before any suite and every teardown after all of them: the
// servers and databases the set-ups started are stopped here, once.
type Stop = () => Promise<void>;
const g = globalThis as { __parleyTestStops?: Stop[] };

export function track(stop: Stop): void {
  (g.__parleyTestStops ??= []).push(stop);
}

export default async function globalTeardown(): Promise<void> {
  const stops = g.__parleyTestStops ?? [];
  g.__parleyTestStops = [];
  await Promise.all(stops.map((stop) => stop()));
}
