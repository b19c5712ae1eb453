import { Injectable } from '@nestjs/common';

/**
 * What the running modules contribute to the discovery document: endpoints they serve and
 * features they enable. A module registers in `onModuleInit`; the instance module reads at
 * bootstrap and serves the result.
 */
@Injectable()
export class ServiceDiscoveryRegistry {
  private readonly endpoints = new Map<string, string>();
  private readonly features = new Map<string, boolean>();
  private readonly limits = new Map<string, unknown>();

  addEndpoints(entries: Record<string, string>): void {
    for (const [k, v] of Object.entries(entries)) this.endpoints.set(k, v);
  }

  setFeatures(entries: Record<string, boolean>): void {
    for (const [k, v] of Object.entries(entries)) this.features.set(k, v);
  }

  setLimits(entries: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(entries)) this.limits.set(k, v);
  }

  snapshot(): {
    endpoints: Record<string, string>;
    features: Record<string, boolean>;
    limits: Record<string, unknown>;
  } {
    return {
      endpoints: Object.fromEntries(this.endpoints),
      features: Object.fromEntries(this.features),
      limits: Object.fromEntries(this.limits),
    };
  }
}
