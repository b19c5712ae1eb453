import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BanRecord } from './ban-columns';

/**
 * A banned IP range (a single address is a /32 or /128): every request from inside it is
 * refused. Requests are matched with `range >>= $1::inet` on the GiST index
 * `ip_bans_range_gist_idx` (`inet_ops`), created by the migration: TypeORM cannot describe it.
 * A statement trigger announces every change on `parley_bans` (ip-ban-gate.ts).
 */
@Entity('ip_bans')
@Index('ip_bans_range_gist_idx', { synchronize: false })
export class IpBanEntity extends BanRecord {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'ip_bans_pkey' })
  id: string;

  /** PostgreSQL `cidr` text, e.g. `203.0.113.0/24`. */
  @Index('ip_bans_range_key', { unique: true })
  @Column({ type: 'cidr' })
  range: string;

  /** The PTR name of a single-address ban, looked up when it was added (null if none in time). */
  @Column({ name: 'reverse_dns', type: 'varchar', length: 253, nullable: true })
  reverseDns: string | null;
}
