import { MigrationInterface, QueryRunner } from 'typeorm';

/** TOTP secrets (encrypted) and backup codes (keyed hashes). */
export class MfaTotp1795500001000 implements MigrationInterface {
  name = 'MfaTotp1795500001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "mfa_totp" ("user_id" bigint NOT NULL, "secret_enc" text NOT NULL, "confirmed_at" TIMESTAMP WITH TIME ZONE, "last_used_step" bigint, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "mfa_totp_pkey" PRIMARY KEY ("user_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "mfa_backup_codes" ("user_id" bigint NOT NULL, "code_hash" bytea NOT NULL, "consumed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "mfa_backup_codes_pkey" PRIMARY KEY ("user_id", "code_hash"))',
    );
    await queryRunner.query(
      'ALTER TABLE "mfa_totp" ADD CONSTRAINT "mfa_totp_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "mfa_backup_codes" ADD CONSTRAINT "mfa_backup_codes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "mfa_backup_codes"');
    await queryRunner.query('DROP TABLE "mfa_totp"');
  }
}
