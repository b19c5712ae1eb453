import { createParamDecorator, type ExecutionContext, type RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';

const EMPTY = Buffer.alloc(0);

/**
 * Handler parameter: the exact bytes of the request body, as received (after any
 * Content-Encoding is undone), for signature checks. Only routes listed in
 * `SIGNED_PAYLOAD_PATHS` keep them (body-parsers.ts, on the raw request); elsewhere, and for
 * bodies no parser read, this is empty.
 */
export const RawBody = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): Buffer =>
    (ctx.switchToHttp().getRequest<FastifyRequest>().raw as RawBodyRequest<IncomingMessage>)
      .rawBody ?? EMPTY,
);
