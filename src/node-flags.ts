/**
 * The Node options production starts with: package.json's `start` and `start:prod`, and
 * docker/Dockerfile's CMD, pass them; bench/servers.ts starts the app with them, so the bench
 * measures what production runs; node-flags.spec.ts checks that all of them agree.
 *
 * `--max-semi-space-size=8`: V8's young generation may grow to 2 × 8 MB. Node 24 lets it grow to
 * 128 MB under a burst of allocation (Node 20: 32 MB) and counts it towards the old generation's
 * limit, so after a reconnect storm an instance kept ~100 MB it did not need — idle gateway
 * connections then measured 14–22 KB each instead of 8–11 (bench/RESULTS.md, 2026-11-27). It can
 * only be set when the process starts (heap-tuning.ts sets what can be set later).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];
