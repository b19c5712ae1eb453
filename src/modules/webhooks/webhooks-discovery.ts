import { Injectable, OnModuleInit } from '@nestjs/common';
import { ServiceDiscoveryRegistry } from '../../common/discovery/service-discovery.registry';
import { AppConfig } from '../../config/app.config';
import { MAX_EMBEDS } from '../guilds/embeds/embed';
import { EMBED_LIMITS } from '../guilds/embeds/truncate';

/** What the webhooks module tells clients through the discovery document. */
@Injectable()
export class WebhooksDiscovery implements OnModuleInit {
  constructor(
    private readonly registry: ServiceDiscoveryRegistry,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.setFeatures({ webhooks: true });
    this.registry.setLimits({
      max_webhooks_per_channel: this.config.limits.maxWebhooksPerChannel,
      message_content_max_length: EMBED_LIMITS.content,
      message_max_embeds: MAX_EMBEDS,
      repohost_max_body_bytes: this.config.limits.repohostBodyBytes,
    });
  }
}
