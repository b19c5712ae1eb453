import { Column } from 'typeorm';

/**
 * What every ban row records besides its value: when, why (the `X-Audit-Log-Reason` of the
 * request that added it) and by which admin key and key owner. No foreign keys: a ban outlives
 * the key and the user that created it.
 */
export abstract class BanRecord {
  @Column({ type: 'varchar', length: 512, nullable: true })
  reason: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'created_by_key_id', type: 'bigint', nullable: true })
  createdByKeyId: string | null;

  @Column({ name: 'created_by_user_id', type: 'bigint', nullable: true })
  createdByUserId: string | null;
}
