import { Injectable, OnModuleInit } from '@nestjs/common';
import { ServiceDiscoveryRegistry } from '../../common/discovery/service-discovery.registry';
import { AppConfig } from '../../config/app.config';
import type { OAuth2ServerMetadataResponse } from './oauth2.response';
import { OAUTH2_SCOPES } from './scopes';

const CLIENT_AUTH = ['client_secret_basic', 'client_secret_post'];

/** RFC 8414 metadata, and the OAuth2 entries of the instance discovery document. */
@Injectable()
export class OAuth2MetadataService implements OnModuleInit {
  private readonly doc: OAuth2ServerMetadataResponse;

  constructor(
    config: AppConfig,
    private readonly registry: ServiceDiscoveryRegistry,
  ) {
    const api = config.apiUrl;
    this.doc = {
      issuer: config.publicUrl,
      authorization_endpoint: `${config.webAppUrl}/oauth2/authorize`,
      token_endpoint: `${api}/oauth2/token`,
      introspection_endpoint: `${api}/oauth2/introspect`,
      revocation_endpoint: `${api}/oauth2/token/revoke`,
      userinfo_endpoint: `${api}/oauth2/userinfo`,
      scopes_supported: [...OAUTH2_SCOPES],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: CLIENT_AUTH,
      introspection_endpoint_auth_methods_supported: CLIENT_AUTH,
      revocation_endpoint_auth_methods_supported: CLIENT_AUTH,
      code_challenge_methods_supported: ['S256'],
      service_documentation: `${config.publicUrl}/docs`,
    };
  }

  onModuleInit(): void {
    this.registry.setFeatures({ oauth2: true });
    this.registry.addEndpoints({
      oauth2_authorization: this.doc.authorization_endpoint,
      oauth2_token: this.doc.token_endpoint,
      oauth2_userinfo: this.doc.userinfo_endpoint,
      oauth2_introspection: this.doc.introspection_endpoint,
      oauth2_revocation: this.doc.revocation_endpoint,
      oauth2_metadata: `${this.doc.issuer}/.well-known/oauth-authorization-server`,
    });
  }

  document(): OAuth2ServerMetadataResponse {
    return this.doc;
  }
}
