import * as nodeModule from 'node:module';

// Imported first by main.ts: on Node ≥ 22.1 (the Docker image runs Node 24), V8 keeps compiled
// code of every module on disk (NODE_COMPILE_CACHE, or a folder in the OS temp dir), so a restart
// skips most of the ~0.8 s spent compiling dependencies. Older runtimes simply lack the function.
const enable = (nodeModule as { enableCompileCache?: (dir?: string) => unknown })
  .enableCompileCache;
enable?.();
