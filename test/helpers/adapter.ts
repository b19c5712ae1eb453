/**
 * The HTTP adapter the suites run on: `TEST_HTTP_ADAPTER` (`express` or `fastify`), else the
 * default (Express). CI runs the e2e project once on each.
 */
export function testHttpAdapter(): 'express' | 'fastify' {
  const name = process.env.TEST_HTTP_ADAPTER ?? 'express';
  if (name !== 'express' && name !== 'fastify') {
    throw new Error(`TEST_HTTP_ADAPTER must be express or fastify, not ${name}`);
  }
  return name;
}
