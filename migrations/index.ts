import type { MixedList } from 'typeorm';

/**
 * Every migration, in order. `npm run migration:generate -- <Name>` writes a new file here;
 * add its class to this list. Landed migrations are never edited.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const MIGRATIONS: MixedList<Function> = [];
