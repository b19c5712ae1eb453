import { MigrationInterface, QueryRunner } from 'typeorm';

/** SMS codes (keyed hashes, 5 minutes): phone verification and the login step. */
export class MfaSms1795500002000 implements MigrationInterface {
  name = 'MfaSms1795500002000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "mfa_sms_codes" ("user_id" bigint NOT NULL, "purpose" character varying(16) NOT NULL, "ticket_id" bigint, "phone" character varying(32) NOT NULL, "code_hash" bytea NOT NULL, "attempts" smallint NOT NULL DEFAULT \'0\', "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "mfa_sms_codes_pkey" PRIMARY KEY ("user_id", "purpose"))',
    );
    await queryRunner.query(
      'ALTER TABLE "mfa_sms_codes" ADD CONSTRAINT "mfa_sms_codes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "mfa_sms_codes"');
  }
}
