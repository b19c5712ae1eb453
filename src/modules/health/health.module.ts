import { Module } from '@nestjs/common';
import { LifecycleModule } from '../../common/lifecycle/lifecycle.module';
import { HealthController } from './health.controller';
import { ReadinessService } from './readiness.service';

@Module({
  // LifecycleModule is global: importing it here also makes the drain state and the outage
  // tracker available to the exception filter.
  imports: [LifecycleModule],
  controllers: [HealthController],
  providers: [ReadinessService],
})
export class HealthModule {}
