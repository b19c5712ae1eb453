import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each application's Ed25519 key pair (issue 28; DESIGN.md "Interactions"): `verify_key` is the
 * public key, hex, as Discord's application object shows it; the private key, which signs what
 * Parley sends to the application's interactions endpoint, is sealed under SECRET_KEY. Existing
 * applications get theirs when first asked for (ApplicationKeys.verifyKeyOf): sealing needs the
 * running server's key, which a migration does not have.
 */
export class ApplicationVerifyKeys1795900000000 implements MigrationInterface {
  name = 'ApplicationVerifyKeys1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "oauth2_applications" ADD "verify_key" character varying(64)',
    );
    await queryRunner.query('ALTER TABLE "oauth2_applications" ADD "signing_key_encrypted" text');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "oauth2_applications" DROP COLUMN "signing_key_encrypted"',
    );
    await queryRunner.query('ALTER TABLE "oauth2_applications" DROP COLUMN "verify_key"');
  }
}
