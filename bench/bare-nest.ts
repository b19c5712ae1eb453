/**
 * The framework floor, run by the bench as its own process on the same runtime as Parley: an
 * empty NestJS 11 app on the Express adapter (Nest's default JSON body parser on, no middleware,
 * guards, pipes or interceptors, no logger), one controller answering the same small object as
 * bare-express.ts. The gap between the two rows is what Nest itself costs per request; the gap
 * between this row and a Parley route is what Parley adds. `PORT` from the environment.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';

@Controller()
class PingController {
  @Get('ping')
  ping(): { ok: boolean; service: string } {
    return { ok: true, service: 'bench' };
  }
}

@Module({ controllers: [PingController] })
class BareModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(BareModule, { logger: false });
  const express = app.getHttpAdapter().getInstance();
  express.disable('x-powered-by');
  express.set('etag', false);
  await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  app.getHttpServer().keepAliveTimeout = 65_000;
}

process.on('SIGTERM', () => process.exit(0));
void main();
