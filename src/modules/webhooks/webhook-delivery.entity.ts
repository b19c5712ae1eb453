import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { WebhookEntity } from './webhook.entity';

/**
 * Delivery ids (`X-GitHub-Delivery`) seen per webhook, so a redelivered event posts once. A row
 * older than a day no longer counts (the insert reclaims it).
 */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn({
    name: 'webhook_id',
    type: 'bigint',
    primaryKeyConstraintName: 'webhook_deliveries_pkey',
  })
  webhookId: string;

  @PrimaryColumn({
    name: 'delivery_id',
    type: 'varchar',
    length: 100,
    primaryKeyConstraintName: 'webhook_deliveries_pkey',
  })
  deliveryId: string;

  @ManyToOne(() => WebhookEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'webhook_id',
    foreignKeyConstraintName: 'webhook_deliveries_webhook_id_fkey',
  })
  webhook?: WebhookEntity;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
