/**
 * The framework floor, run by the bench as its own process on the same runtime as Parley: an
 * empty NestJS 11 app (no middleware, guards, pipes or interceptors, no logger), one controller
 * answering the same small object as bare-express.ts. `BARE_NEST_ADAPTER=fastify` runs it on the
 * Fastify adapter (the floor of Parley with HTTP_ADAPTER=fastify); otherwise on the Express
 * adapter, Nest's default and Parley's, with Nest's default JSON body parser on. The gap between a bare row and a Parley route
 * is what Parley adds. `PORT` from the environment.
 */
import 'reflect-metadata';
import { Controller, Get, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';

@Controller()
class PingController {
  @Get('ping')
  ping(): { ok: boolean; service: string } {
    return { ok: true, service: 'bench' };
  }
}

@Module({ controllers: [PingController] })
class BareModule {}

async function create(): Promise<INestApplication> {
  if (process.env.BARE_NEST_ADAPTER === 'fastify') {
    return NestFactory.create<NestFastifyApplication>(BareModule, new FastifyAdapter(), {
      logger: false,
    });
  }
  const app = await NestFactory.create<NestExpressApplication>(BareModule, { logger: false });
  const express = app.getHttpAdapter().getInstance();
  express.disable('x-powered-by');
  express.set('etag', false);
  return app;
}

async function main(): Promise<void> {
  const app = await create();
  await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  (app.getHttpServer() as Server).keepAliveTimeout = 65_000;
}

process.on('SIGTERM', () => process.exit(0));
void main();
