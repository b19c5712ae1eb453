import { setFlagsFromString } from 'node:v8';

// Imported by main.ts right after `.env` is read, before the app allocates anything. V8 lets the old generation grow
// to its live size times a factor before the next full collection — up to 4× when a burst
// allocates fast — and keeps those pages afterwards. A reconnect storm (thousands of gateway
// identifies at once) left an instance with ~100 MB of heap it no longer needed: idle
// connections appeared to cost 25 KB each instead of 11 (bench/RESULTS.md, 2026-11-27). Growing
// by 30 % at most keeps the heap near what is live, at the cost of more frequent (incremental)
// full collections; measured on the hot paths in the same bench. HEAP_GROWING_PERCENT=0 leaves
// V8's own heuristics. Validated with the rest of the environment (env.schema.ts); a value the
// schema refuses stops the boot there, so an invalid one is only ignored here.
const percent = Number(process.env.HEAP_GROWING_PERCENT ?? 30);
if (Number.isInteger(percent) && percent > 0 && percent <= 400) {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
