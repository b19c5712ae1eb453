import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { DECORATORS } from '@nestjs/swagger';
import type { ParleyApp } from '../../src/app.setup';

/** The static method the Swagger CLI plugin adds to each class it compiles (not exported). */
const METADATA_FACTORY_NAME = '_OPENAPI_METADATA_FACTORY';

/** A route of the app with the classes that shape it, as the Swagger explorer reads them. */
export interface DocumentedRoute {
  /** `TotpEnrolmentController.enable`. */
  label: string;
  /** What the document calls it: `@ApiOperation({ operationId })`, else the factory's name. */
  operationId: string;
  handler: object;
  controller: Type;
  /** The class the ValidationPipe validates the body against (`@Body() dto: X`). */
  body?: Type;
  /** The class the ValidationPipe validates the whole query against (`@Query() q: X`). */
  query?: Type;
  /** Success answers: `@ApiOkResponse({ type })` & co., or what the plugin inferred. */
  responses: Array<{ status: string; type: Type }>;
}

const NOT_MODELS = new Set<unknown>([
  String,
  Number,
  Boolean,
  Object,
  Array,
  Date,
  Buffer,
  Promise,
]);

/** A class that becomes a schema of its own (not a primitive or a built-in). */
export function isModel(t: unknown): t is Type {
  return typeof t === 'function' && t.prototype !== undefined && !NOT_MODELS.has(t);
}

/** `X`, `[X]`, `() => X` or `() => [X]` (how decorators and the plugin name a type) → `X`. */
export function modelOf(t: unknown): Type | undefined {
  if (Array.isArray(t)) return modelOf(t[0]);
  // A lazy type (`type: () => X`) is an arrow function: it has no prototype.
  if (typeof t === 'function' && t.prototype === undefined) return modelOf((t as () => unknown)());
  return isModel(t) ? t : undefined;
}

/** Whether the Swagger CLI plugin compiled this class (it adds a static metadata factory). */
export function readByPlugin(cls: Type): boolean {
  return Object.prototype.hasOwnProperty.call(cls, METADATA_FACTORY_NAME);
}

/**
 * The declared type of every property of `cls` the document can show, inherited ones included:
 * what the plugin wrote (`_OPENAPI_METADATA_FACTORY`) and what `@ApiProperty` says.
 */
export function propertyTypes(cls: Type): Map<string, unknown> {
  const types = new Map<string, unknown>();
  for (let c: unknown = cls; isModel(c); c = Object.getPrototypeOf(c)) {
    const proto = c.prototype as object;
    const keys = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, proto) ??
      []) as string[];
    for (const key of keys.map((k) => k.replace(/^:/, ''))) {
      const meta = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, proto, key) as
        { type?: unknown } | undefined;
      if (!types.has(key) && meta?.type !== undefined) types.set(key, meta.type);
    }
    if (Object.prototype.hasOwnProperty.call(c, METADATA_FACTORY_NAME)) {
      const factory = (c as unknown as Record<string, () => Record<string, { type?: unknown }>>)[
        METADATA_FACTORY_NAME
      ];
      for (const [key, meta] of Object.entries(factory())) {
        if (!types.has(key) && meta.type !== undefined) types.set(key, meta.type);
      }
    }
  }
  return types;
}

/**
 * Every route the document shows (not `@ApiExcludeEndpoint`/`@ApiExcludeController`), found the
 * way the Swagger explorer finds them. The app must import `DiscoveryModule`.
 */
export function documentedRoutes(app: ParleyApp): DocumentedRoute[] {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const routes: DocumentedRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance) continue;
    const controller = instance.constructor as Type;
    if (Reflect.getMetadata(DECORATORS.API_EXCLUDE_CONTROLLER, controller)?.[0]) continue;
    const proto = Object.getPrototypeOf(instance) as Record<string, object>;
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = proto[name];
      if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      if (Reflect.getMetadata(DECORATORS.API_EXCLUDE_ENDPOINT, handler)?.disable) continue;
      if (Reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.ALL) {
        throw new Error(`${controller.name}.${name}: @All routes are not handled here`);
      }
      const operation = Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as
        { operationId?: string } | undefined;
      const route: DocumentedRoute = {
        label: `${controller.name}.${name}`,
        // The factory of buildOpenApiDocument (app.setup.ts).
        operationId: operation?.operationId ?? `${controller.name}_${name}`,
        handler,
        controller,
        responses: [],
      };
      // What the ValidationPipe validates: the declared type of a whole @Body() or @Query().
      const paramTypes = (Reflect.getMetadata('design:paramtypes', proto, name) ?? []) as unknown[];
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
        string,
        { index: number; data?: unknown }
      >;
      for (const [key, arg] of Object.entries(args)) {
        const kind = Number(key.split(':')[0]) as RouteParamtypes;
        const type = paramTypes[arg.index];
        if (arg.data !== undefined || !isModel(type)) continue;
        if (kind === RouteParamtypes.BODY) route.body = type;
        if (kind === RouteParamtypes.QUERY) route.query = type;
      }
      const responses = {
        ...(Reflect.getMetadata(DECORATORS.API_RESPONSE, controller) ?? {}),
        ...(Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) ?? {}),
      } as Record<string, { type?: unknown }>;
      for (const [status, response] of Object.entries(responses)) {
        const type = modelOf(response.type);
        if (/^2/.test(status) && type) route.responses.push({ status, type });
      }
      routes.push(route);
    }
  }
  return routes;
}
