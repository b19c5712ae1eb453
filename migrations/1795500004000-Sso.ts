import { MigrationInterface, QueryRunner } from 'typeorm';

/** SSO: started logins (hashed state and nonce, sealed PKCE verifier) and linked identities. */
export class Sso1795500004000 implements MigrationInterface {
  name = 'Sso1795500004000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "sso_states" ("id" bigint NOT NULL, "state_hash" bytea NOT NULL, "nonce_hash" bytea NOT NULL, "code_verifier_enc" text NOT NULL, "redirect_to" character varying(2048) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "consumed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "sso_states_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "sso_states_state_hash_key" ON "sso_states" ("state_hash") ',
    );
    await queryRunner.query(
      'CREATE TABLE "sso_identities" ("issuer" character varying(512) NOT NULL, "subject" character varying(255) NOT NULL, "user_id" bigint NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_login_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "sso_identities_pkey" PRIMARY KEY ("issuer", "subject"))',
    );
    await queryRunner.query(
      'CREATE INDEX "sso_identities_user_id_idx" ON "sso_identities" ("user_id") ',
    );
    await queryRunner.query(
      'ALTER TABLE "sso_identities" ADD CONSTRAINT "sso_identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "sso_identities"');
    await queryRunner.query('DROP TABLE "sso_states"');
  }
}
