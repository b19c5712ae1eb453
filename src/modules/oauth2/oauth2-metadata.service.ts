import { Injectable, OnModuleInit } from '@nestjs/common';
import { ServiceDiscoveryRegistry } from '../../common/discovery/service-discovery.registry';
import { AppConfig } from '../../config/app.config';
import type { OAuth2ServerMetadataResponse } from './oauth2.response';
import { OIDC_CLAIMS } from './oidc-claims';
import { OidcKeyStore } from './oidc-keys';
import type { JwksResponse, OidcConfigurationResponse } from './oidc.response';
import { OAUTH2_SCOPES } from './scopes';

const CLIENT_AUTH = ['client_secret_basic', 'client_secret_post'];

/**
 * RFC 8414 metadata, OpenID Connect discovery and JWKS (all built once at boot), and the OAuth2
 * entries of the instance discovery document.
 */
@Injectable()
export class OAuth2MetadataService implements OnModuleInit {
  private readonly doc: OAuth2ServerMetadataResponse;
  private readonly oidc: OidcConfigurationResponse;

  constructor(
    config: AppConfig,
    private readonly registry: ServiceDiscoveryRegistry,
    private readonly keys: OidcKeyStore,
  ) {
    const api = config.apiUrl;
    this.doc = {
      issuer: config.publicUrl,
      authorization_endpoint: `${config.webAppUrl}/oauth2/authorize`,
      token_endpoint: `${api}/oauth2/token`,
      introspection_endpoint: `${api}/oauth2/introspect`,
      revocation_endpoint: `${api}/oauth2/token/revoke`,
      userinfo_endpoint: `${api}/oauth2/userinfo`,
      jwks_uri: `${api}/oauth2/keys`,
      scopes_supported: [...OAUTH2_SCOPES],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: CLIENT_AUTH,
      introspection_endpoint_auth_methods_supported: CLIENT_AUTH,
      revocation_endpoint_auth_methods_supported: CLIENT_AUTH,
      code_challenge_methods_supported: ['S256'],
      service_documentation: `${config.publicUrl}/docs`,
    };
    const d = this.doc;
    this.oidc = {
      issuer: d.issuer,
      authorization_endpoint: d.authorization_endpoint,
      token_endpoint: d.token_endpoint,
      userinfo_endpoint: d.userinfo_endpoint,
      jwks_uri: d.jwks_uri,
      introspection_endpoint: d.introspection_endpoint,
      revocation_endpoint: d.revocation_endpoint,
      scopes_supported: d.scopes_supported,
      response_types_supported: d.response_types_supported,
      response_modes_supported: ['query'],
      grant_types_supported: d.grant_types_supported,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [keys.alg],
      token_endpoint_auth_methods_supported: d.token_endpoint_auth_methods_supported,
      code_challenge_methods_supported: d.code_challenge_methods_supported,
      claims_supported: [...OIDC_CLAIMS],
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      service_documentation: d.service_documentation,
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
      oidc_configuration: `${this.doc.issuer}/.well-known/openid-configuration`,
      oauth2_keys: this.doc.jwks_uri,
    });
  }

  document(): OAuth2ServerMetadataResponse {
    return this.doc;
  }

  openIdConfiguration(): OidcConfigurationResponse {
    return this.oidc;
  }

  jwks(): JwksResponse {
    return this.keys.jwks();
  }
}
