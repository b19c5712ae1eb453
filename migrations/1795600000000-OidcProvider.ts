import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OpenID Connect provider: the consent's nonce on the code, and the user's authentication time
 * on codes and grants (ID tokens and userinfo carry it as `auth_time`). Existing rows take their
 * creation time, the closest known bound.
 */
export class OidcProvider1795600000000 implements MigrationInterface {
  name = 'OidcProvider1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "oauth2_codes" ADD "nonce" character varying(255)');
    await queryRunner.query('ALTER TABLE "oauth2_codes" ADD "auth_time" TIMESTAMP WITH TIME ZONE');
    await queryRunner.query('UPDATE "oauth2_codes" SET "auth_time" = "created_at"');
    await queryRunner.query('ALTER TABLE "oauth2_codes" ALTER COLUMN "auth_time" SET NOT NULL');
    await queryRunner.query('ALTER TABLE "oauth2_grants" ADD "auth_time" TIMESTAMP WITH TIME ZONE');
    await queryRunner.query('UPDATE "oauth2_grants" SET "auth_time" = "created_at"');
    await queryRunner.query('ALTER TABLE "oauth2_grants" ALTER COLUMN "auth_time" SET NOT NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "oauth2_grants" DROP COLUMN "auth_time"');
    await queryRunner.query('ALTER TABLE "oauth2_codes" DROP COLUMN "auth_time"');
    await queryRunner.query('ALTER TABLE "oauth2_codes" DROP COLUMN "nonce"');
  }
}
