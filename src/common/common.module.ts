import { Global, Module } from '@nestjs/common';
import { CredentialResolvers } from './auth/credential-resolvers';
import { ServiceDiscoveryRegistry } from './discovery/service-discovery.registry';
import { SnowflakeService } from './snowflake/snowflake.service';

/** Cross-cutting providers every module may use. */
@Global()
@Module({
  providers: [CredentialResolvers, ServiceDiscoveryRegistry, SnowflakeService],
  exports: [CredentialResolvers, ServiceDiscoveryRegistry, SnowflakeService],
})
export class CommonModule {}
