import { Logger } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { createApp } from './app.setup';
import { AppConfig } from './config/app.config';

async function bootstrap(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config: AppConfig;
  try {
    config = AppConfig.fromEnv(process.env);
  } catch (e) {
    // A bad value stops the boot with a message naming the variable.
    console.error((e as Error).message);
    process.exit(1);
  }
  const app = await createApp();
  const server = await app.listen(config.port, '0.0.0.0');
  // Keep-alive longer than typical load-balancer idle timeouts; SIGTERM closes the listener
  // and lets in-flight requests finish (enableShutdownHooks → app.close()).
  server.keepAliveTimeout = 65_000;
  new Logger('Parley').log(
    `listening on ${config.publicUrl} (Swagger UI: ${config.publicUrl}/docs)`,
  );
}

void bootstrap();
