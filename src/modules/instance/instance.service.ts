import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/app.config';
import { ServiceDiscoveryRegistry } from '../../common/discovery/service-discovery.registry';
import type { DiscoveryResponse } from './discovery.response';

/** Builds the discovery document once, after every module has contributed to it. */
@Injectable()
export class InstanceService implements OnApplicationBootstrap {
  private document: DiscoveryResponse;
  private serialized: Buffer;

  constructor(
    private readonly config: AppConfig,
    private readonly registry: ServiceDiscoveryRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const c = this.config;
    const contributed = this.registry.snapshot();
    const sso = contributed.features.sso === true;
    const buckets = Object.fromEntries(
      Object.entries(c.rateLimits.buckets).map(([name, b]) => [
        name,
        { limit: b.limit, window_seconds: b.ttlMs / 1000 },
      ]),
    );
    this.document = {
      api_code_version: c.version,
      endpoints: {
        api: c.apiUrl,
        webapp: c.webAppUrl,
        admin: `${c.apiUrl}/admin`,
        docs: `${c.publicUrl}/docs`,
        ...contributed.endpoints,
      },
      // A feature is on only when a running module says so (and its configuration allows it):
      // e.g. `sso` stays false while no SSO module is loaded, whatever SSO_ENABLED says.
      features: {
        registration: false,
        ip_authorization: false,
        sms_mfa: false,
        webauthn: false,
        sso: false,
        oauth2: false,
        webhooks: false,
        rate_limits: c.rateLimits.enabled,
        shared_rate_limits: Boolean(c.redisUrl),
        smtp: Boolean(c.mail.smtpUrl),
        ...contributed.features,
      },
      limits: {
        rate_limits: c.rateLimits.enabled ? buckets : {},
        max_json_body_bytes: c.limits.jsonBodyBytes,
        max_list_limit: c.limits.maxListLimit,
        ...contributed.limits,
      },
      sso: {
        enabled: sso,
        enforced: sso && c.sso.enforced,
        display_name: c.sso.displayName,
        redirect_uri: sso ? c.sso.redirectUri : null,
      },
      federation: { enabled: false },
    };
    this.serialized = Buffer.from(JSON.stringify(this.document));
  }

  /** The document, pre-encoded: the discovery route is hit by every client at start-up. */
  discoveryJson(): Buffer {
    return this.serialized;
  }

  discovery(): DiscoveryResponse {
    return this.document;
  }
}
