import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { HttpRequest } from '../http/http-types';

/**
 * The raw `Authorization` header, for the OAuth2 client endpoints that read client credentials
 * from it themselves. Unlike `@Headers('authorization')` it adds no header parameter to the
 * OpenAPI document: the header is the `clientBasic` security scheme there, and a documented
 * parameter of the same name made Swagger UI demand a value it then never sent.
 */
export const AuthorizationHeader = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): string | undefined =>
    ctx.switchToHttp().getRequest<HttpRequest>().headers.authorization,
);
