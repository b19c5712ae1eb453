import { MigrationInterface, QueryRunner } from 'typeorm';

/** WebAuthn credentials and the challenges this server issued (hashed, single use, 5 minutes). */
export class WebAuthn1795500003000 implements MigrationInterface {
  name = 'WebAuthn1795500003000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "webauthn_credentials" ("id" bigint NOT NULL, "user_id" bigint NOT NULL, "credential_id" character varying(1024) NOT NULL, "public_key" bytea NOT NULL, "counter" bigint NOT NULL DEFAULT \'0\', "transports" text array NOT NULL DEFAULT \'{}\', "name" character varying(100) NOT NULL, "device_type" character varying(32) NOT NULL, "backed_up" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "webauthn_credentials_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "webauthn_credentials_user_id_idx" ON "webauthn_credentials" ("user_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "webauthn_credentials_credential_id_key" ON "webauthn_credentials" ("credential_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "webauthn_challenges" ("id" bigint NOT NULL, "challenge_hash" bytea NOT NULL, "purpose" character varying(16) NOT NULL, "user_id" bigint, "ticket_id" bigint, "session_id" bigint, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "consumed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "webauthn_challenges_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "webauthn_challenges_challenge_hash_key" ON "webauthn_challenges" ("challenge_hash") ',
    );
    await queryRunner.query(
      'ALTER TABLE "webauthn_credentials" ADD CONSTRAINT "webauthn_credentials_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "webauthn_challenges"');
    await queryRunner.query('DROP TABLE "webauthn_credentials"');
  }
}
