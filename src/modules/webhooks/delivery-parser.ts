import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { join } from 'node:path';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { WorkerPool, WorkerPoolBusyError, WorkerTaskError } from '../../common/workers/worker-pool';
import type { MessageDraft } from '../guilds/embeds/embed';
import { renderDelivery, type DeliveryInput, type DeliveryOutcome } from './delivery';

/**
 * Bodies up to this size are rendered on the event loop: the worst JSON of 64 KiB (tens of
 * thousands of distinct keys) parses in a few milliseconds, less than a thread hop costs a
 * typical small delivery.
 */
export const INLINE_DELIVERY_BYTES = 64 * 1024;

/**
 * Renders deliveries (delivery.ts) — small ones at once, large ones on a worker thread, so that
 * parsing a 25 MiB payload of millions of tiny values never stalls other requests. The pool is
 * bounded: its threads have their own heap limit (a payload that would need more fails alone, as
 * 413) and queue (a flood of large deliveries is shed with 503 and `Retry-After`).
 */
@Injectable()
export class DeliveryParser implements OnModuleDestroy {
  private readonly pool = new WorkerPool(join(__dirname, 'delivery'), {
    size: 1,
    maxQueue: 16,
    maxOldGenerationSizeMb: 512,
    taskTimeoutMs: 30_000,
  });

  async render(input: DeliveryInput): Promise<MessageDraft | null> {
    const size = input.payload?.bytes.length ?? 0;
    if (size <= INLINE_DELIVERY_BYTES) return renderDelivery(input);
    // The body is not needed here any more: move its memory to the thread rather than copy it.
    const bytes = input.payload!.bytes;
    const whole = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length;
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.pool.run<DeliveryOutcome>(
        input,
        whole ? [bytes.buffer as ArrayBuffer] : [],
      );
    } catch (err) {
      throw this.poolError(err);
    }
    if (outcome.ok) return outcome.draft;
    throw new ApiError(outcome.code, outcome.message, outcome.extra);
  }

  onModuleDestroy(): Promise<void> {
    return this.pool.close();
  }

  private poolError(err: unknown): Error {
    if (err instanceof WorkerPoolBusyError) {
      return new ApiError(
        ErrorCode.ServiceUnavailable,
        'Too many large deliveries at once.',
        {},
        {
          'Retry-After': '1',
        },
      );
    }
    if (err instanceof WorkerTaskError && err.exhausted) {
      return new ApiError(ErrorCode.PayloadTooLarge, 'The delivery is too costly to process.');
    }
    return err as Error;
  }
}
