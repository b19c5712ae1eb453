import { Injectable, OnModuleInit } from '@nestjs/common';
import { ServiceDiscoveryRegistry } from '../../common/discovery/service-discovery.registry';
import { AppConfig } from '../../config/app.config';

/** What the accounts module tells clients through the discovery document. */
@Injectable()
export class AuthDiscovery implements OnModuleInit {
  constructor(
    private readonly registry: ServiceDiscoveryRegistry,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.setFeatures({
      registration: this.config.registration,
      ip_authorization: this.config.ipAuthorization,
      email_verification: true,
      password_reset: true,
      device_handoff: true,
    });
    this.registry.setLimits({
      password_min_length: 8,
      password_max_length: 256,
      username_max_length: 32,
      global_name_max_length: 32,
      session_logout_max_hashes: 100,
      minimum_age: 13,
    });
  }
}
