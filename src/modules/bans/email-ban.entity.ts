import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BanRecord } from './ban-columns';

/** A banned e-mail address (trimmed, lower-cased): it can neither register nor be set. */
@Entity('email_bans')
export class EmailBanEntity extends BanRecord {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'email_bans_pkey' })
  id: string;

  @Index('email_bans_email_key', { unique: true })
  @Column({ type: 'varchar', length: 320 })
  email: string;
}
