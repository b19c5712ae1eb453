import type { HttpAdapterName, HttpPlatform } from './http-platform';

/**
 * The platform `HTTP_ADAPTER` names. Each framework is loaded only when it is the one in use: an
 * Express server never loads Fastify, and the other way round.
 */
export async function loadHttpPlatform(name: HttpAdapterName): Promise<HttpPlatform> {
  if (name === 'fastify') {
    const { FastifyPlatform } = await import('./fastify.platform');
    return new FastifyPlatform();
  }
  const { ExpressPlatform } = await import('./express.platform');
  return new ExpressPlatform();
}
