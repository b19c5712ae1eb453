import type { BulkFailureCode, BulkOperationResponse } from './bulk-operation.response';

/** The outcome of one requested item. */
export type BulkItemOutcome =
  { id: string; ok: true } | { id: string; ok: false; error: BulkFailureCode };

export function toBulkOperationResponse(items: readonly BulkItemOutcome[]): BulkOperationResponse {
  return {
    successful: items.filter((i) => i.ok).map((i) => i.id),
    failed: items.flatMap((i) => (i.ok ? [] : [{ id: i.id, error: i.error }])),
  };
}
