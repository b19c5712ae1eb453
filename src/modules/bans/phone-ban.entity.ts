import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BanRecord } from './ban-columns';

/** A banned phone number (E.164): phone verification and SMS sending refuse it. */
@Entity('phone_bans')
export class PhoneBanEntity extends BanRecord {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'phone_bans_pkey' })
  id: string;

  @Index('phone_bans_phone_key', { unique: true })
  @Column({ type: 'varchar', length: 16 })
  phone: string;
}
