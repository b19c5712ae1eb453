import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SSO: the nonce of a started login sealed under SECRET_KEY instead of hashed, because
 * openid-client compares the ID token's nonce with the nonce itself. Logins started before this
 * kept only the hash and could not complete any more: they are dropped (10 minutes, single use;
 * a dropped state answers INVALID_SSO_STATE exactly as a consumed one does).
 */
export class SsoNonceSealed1795615031630 implements MigrationInterface {
  name = 'SsoNonceSealed1795615031630';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM "sso_states"');
    await queryRunner.query('ALTER TABLE "sso_states" DROP COLUMN "nonce_hash"');
    await queryRunner.query('ALTER TABLE "sso_states" ADD "nonce_enc" text NOT NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM "sso_states"');
    await queryRunner.query('ALTER TABLE "sso_states" DROP COLUMN "nonce_enc"');
    await queryRunner.query('ALTER TABLE "sso_states" ADD "nonce_hash" bytea NOT NULL');
  }
}
