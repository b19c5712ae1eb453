import { ApiProperty } from '@nestjs/swagger';

export class DiscoveryEndpoints {
  /** Base URL of this API, including /v1. */
  api: string;
  /** The web client. */
  webapp: string;
  /** Base URL of the admin API. */
  admin: string;
  /** Swagger UI. */
  docs: string;
  /** Further endpoints contributed by the running modules (OAuth2, …). */
  [key: string]: string;
}

export class DiscoverySso {
  enabled: boolean;
  enforced: boolean;
  display_name: string | null;
  redirect_uri: string | null;
}

export class DiscoveryFederation {
  enabled: boolean;
}

/** The instance discovery document. */
export class DiscoveryResponse {
  /** Version of the Parley API code serving this instance. */
  api_code_version: string;
  endpoints: DiscoveryEndpoints;
  /** What this instance has enabled. */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'boolean' },
    example: { registration: true, sso: false },
  })
  features: Record<string, boolean>;
  /** Rate-limit buckets and maximum lengths. */
  @ApiProperty({ type: 'object', additionalProperties: true })
  limits: Record<string, unknown>;
  sso: DiscoverySso;
  federation: DiscoveryFederation;
}
