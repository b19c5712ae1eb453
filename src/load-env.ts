import { existsSync } from 'node:fs';

// Imported first by main.ts: `.env` (if any) is read before anything that looks at the
// environment while modules load (heap tuning, tracing). Variables already set win.
if (existsSync('.env')) process.loadEnvFile('.env');
