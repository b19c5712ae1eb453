import { AuthFlows1795328093746 } from './1795328093746-AuthFlows';
import { Accounts1795327247067 } from './1795327247067-Accounts';
import type { MixedList } from 'typeorm';

/**
 * Every migration, in order. `npm run migration:generate -- <Name>` writes a new file here and
 * appends its class to this list. Landed migrations are never edited.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const MIGRATIONS: MixedList<Function> = [Accounts1795327247067, AuthFlows1795328093746];
