import type { DataSource, EntityManager } from 'typeorm';

/** True when `manager` belongs to a transaction that is still open. */
export function inOpenTransaction(manager: EntityManager | undefined): manager is EntityManager {
  return manager?.queryRunner?.isTransactionActive === true;
}

/**
 * Runs `work` as part of the caller's unit of work: in `manager`'s transaction when the caller
 * has one open, otherwise in a new transaction that commits when `work` resolves. A service that
 * writes more than one row takes an optional `manager` and passes it here, so the same method
 * serves both a route of its own and a caller that must commit or roll back everything at once
 * (an audit entry with the change it records, a bot install with the consent that asked for it).
 *
 * When joining, nothing is committed here: an error thrown by `work` must reach the caller's
 * transaction (PostgreSQL refuses every further statement in a failed transaction), so don't
 * catch it in between. Side effects that need the commit (mail, cache drops on this instance)
 * belong to whoever opened the transaction.
 */
export function inTransaction<T>(
  dataSource: DataSource,
  manager: EntityManager | undefined,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  if (inOpenTransaction(manager)) return work(manager);
  return (manager ?? dataSource.manager).transaction(work);
}
