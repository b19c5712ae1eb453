import { Global, Module } from '@nestjs/common';
import { CredentialResolvers } from './auth/credential-resolvers';
import { RouteCredentials } from './auth/route-credential';
import { RoutePolicies } from './http/route-policies';
import { ServiceDiscoveryRegistry } from './discovery/service-discovery.registry';
import { SweeperService } from './maintenance/sweeper.service';
import { SnowflakeService } from './snowflake/snowflake.service';

/** Cross-cutting providers every module may use. */
@Global()
@Module({
  providers: [
    CredentialResolvers,
    RouteCredentials,
    RoutePolicies,
    ServiceDiscoveryRegistry,
    SnowflakeService,
    SweeperService,
  ],
  exports: [
    CredentialResolvers,
    RouteCredentials,
    RoutePolicies,
    ServiceDiscoveryRegistry,
    SnowflakeService,
    SweeperService,
  ],
})
export class CommonModule {}
