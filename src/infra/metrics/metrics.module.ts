import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { Metrics } from './metrics';

/**
 * The metrics port every module reports to (Metrics). Without METRICS_PORT it is the no-op base
 * class and prom-client is never loaded; with it, PrometheusMetrics and its own listener.
 */
@Global()
@Module({
  providers: [
    {
      provide: Metrics,
      inject: [AppConfig],
      useFactory: async (config: AppConfig): Promise<Metrics> => {
        if (config.metrics.port === null) return new Metrics();
        const { PrometheusMetrics } = await import('./prometheus-metrics');
        return new PrometheusMetrics(config.metrics.host, config.metrics.port);
      },
    },
  ],
  exports: [Metrics],
})
export class MetricsModule {}
