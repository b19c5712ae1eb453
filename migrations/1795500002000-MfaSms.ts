import { MigrationInterface, QueryRunner } from 'typeorm';

/** Phone verification and SMS login codes (keyed hashes). */
export class MfaSms1795500002000 implements MigrationInterface {
  name = 'MfaSms1795500002000';

  public async up(_queryRunner: QueryRunner): Promise<void> {}

  public async down(_queryRunner: QueryRunner): Promise<void> {}
}
