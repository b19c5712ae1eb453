import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * How many commands an application created in a scope (a guild, or `0`: global) on a UTC day:
 * Discord's 200 creates per day. A scope's rows of past days are deleted at its next create.
 */
@Entity('application_command_creates')
export class ApplicationCommandCreatesEntity {
  @PrimaryColumn({
    name: 'application_id',
    type: 'bigint',
    primaryKeyConstraintName: 'application_command_creates_pkey',
  })
  applicationId: string;

  @PrimaryColumn({
    name: 'scope_id',
    type: 'bigint',
    primaryKeyConstraintName: 'application_command_creates_pkey',
  })
  scopeId: string;

  @PrimaryColumn({ type: 'date', primaryKeyConstraintName: 'application_command_creates_pkey' })
  day: string;

  @Column({ type: 'integer', default: 0 })
  count: number;
}
