import { RequestMethod } from '@nestjs/common';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryModule, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { ParleyApp } from '../src/app.setup';
import { AUTH_METADATA, PUBLIC_METADATA } from '../src/common/auth/auth.metadata';
import { createTestApp } from './helpers/app';

/** Default deny: every route of the real app must say who may call it. */
describe('route walk', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp({ imports: [DiscoveryModule] });
  });
  afterAll(() => app.close());

  it('finds @Auth or @Public on every registered route', () => {
    const discovery = app.get(DiscoveryService);
    const scanner = app.get(MetadataScanner);
    const reflector = app.get(Reflector);
    const routes: string[] = [];
    const undecorated: string[] = [];
    for (const wrapper of discovery.getControllers()) {
      const instance = wrapper.instance as object | undefined;
      if (!instance) continue;
      const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(proto)) {
        const handler = proto[name] as (...args: unknown[]) => unknown;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const label = `${method} ${wrapper.name}.${name}`;
        routes.push(label);
        const targets = [handler, instance.constructor];
        const ok =
          reflector.getAllAndOverride(AUTH_METADATA, targets) !== undefined ||
          reflector.getAllAndOverride(PUBLIC_METADATA, targets) === true;
        if (!ok) undecorated.push(label);
      }
    }
    expect(routes.length).toBeGreaterThanOrEqual(3);
    expect(undecorated).toEqual([]);
  });
});
