import { markWorkerSettlementsHandled } from './jobs.service';

// pg-boss's own manager, as its worker loop uses it: `this.complete(...)` without await.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Manager = require('pg-boss/src/manager') as {
  prototype: Record<string, (...args: unknown[]) => Promise<unknown>>;
};

describe('pg-boss settlements during a database outage', () => {
  it('a complete()/fail() nobody awaits no longer rejects unhandled; awaiting callers still see the error', async () => {
    const logged: string[] = [];
    markWorkerSettlementsHandled((m) => logged.push(m));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const manager = Object.create(Manager.prototype) as Record<string, unknown> & {
        complete: (...a: unknown[]) => Promise<unknown>;
        fail: (...a: unknown[]) => Promise<unknown>;
      };
      manager.db = { executeSql: () => Promise.reject(new Error('read ECONNRESET')) };
      manager.completeJobsCommand = 'SELECT 1';
      manager.failJobsByIdCommand = 'SELECT 1';
      // As pg-boss's onFetch does: fire and forget.
      void manager.complete('archive-build', 'a7c1f1d2-0000-4000-8000-000000000001', {});
      void manager.fail('archive-build', 'a7c1f1d2-0000-4000-8000-000000000002', new Error('x'));
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
      expect(logged).toEqual([
        expect.stringContaining('could not complete a job (read ECONNRESET)'),
        expect.stringContaining('could not fail a job (read ECONNRESET)'),
      ]);
      await expect(
        manager.complete('archive-build', 'a7c1f1d2-0000-4000-8000-000000000003', {}),
      ).rejects.toThrow('read ECONNRESET');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
