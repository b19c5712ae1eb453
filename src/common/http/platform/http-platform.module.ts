import { Global, Module, type DynamicModule } from '@nestjs/common';
import { HttpPlatform } from './http-platform';

/**
 * The HTTP platform in use (Express or Fastify), for every module: the request pipeline, the
 * exception filter, and what reads requests outside it (the gateway's upgrade takes its client
 * address from `HttpPlatform.clientAddressOf`). The providers the platform adds stay in the
 * root module, whose bootstrap hooks run last (Fastify is made ready there).
 */
@Global()
@Module({})
export class HttpPlatformModule {
  static forRoot(platform: HttpPlatform): DynamicModule {
    return {
      module: HttpPlatformModule,
      providers: [{ provide: HttpPlatform, useValue: platform }],
      exports: [HttpPlatform],
    };
  }
}
