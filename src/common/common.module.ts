import { Global, Module } from '@nestjs/common';
import { CredentialResolvers } from './auth/credential-resolvers';
import { ServiceDiscoveryRegistry } from './discovery/service-discovery.registry';
import { SweeperService } from './maintenance/sweeper.service';
import { SnowflakeService } from './snowflake/snowflake.service';

/** Cross-cutting providers every module may use. */
@Global()
@Module({
  providers: [CredentialResolvers, ServiceDiscoveryRegistry, SnowflakeService, SweeperService],
  exports: [CredentialResolvers, ServiceDiscoveryRegistry, SnowflakeService, SweeperService],
})
export class CommonModule {}
