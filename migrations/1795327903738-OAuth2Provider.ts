import { MigrationInterface, QueryRunner } from 'typeorm';

export class OAuth2Provider1795327903738 implements MigrationInterface {
  name = 'OAuth2Provider1795327903738';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "oauth2_applications" ("id" bigint NOT NULL, "owner_id" bigint NOT NULL, "bot_user_id" bigint NOT NULL, "name" character varying(100) NOT NULL, "description" character varying(400), "icon" character varying(64), "redirect_uris" text array NOT NULL DEFAULT \'{}\', "bot_public" boolean NOT NULL DEFAULT true, "bot_require_code_grant" boolean NOT NULL DEFAULT false, "flags" integer NOT NULL DEFAULT \'0\', "bot_flags" integer NOT NULL DEFAULT \'0\', "client_secret_hash" bytea NOT NULL, "bot_token_hash" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "oauth2_applications_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "oauth2_applications_owner_id_idx" ON "oauth2_applications"  ("owner_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "oauth2_applications_bot_user_id_key" ON "oauth2_applications"  ("bot_user_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth2_authorizations" ("id" bigint NOT NULL, "user_id" bigint NOT NULL, "application_id" bigint NOT NULL, "scopes" text array NOT NULL, "authorized_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "oauth2_authorizations_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "oauth2_authorizations_application_id_idx" ON "oauth2_authorizations"  ("application_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "oauth2_authorizations_user_id_application_id_key" ON "oauth2_authorizations"  ("user_id", "application_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth2_codes" ("id" bigint NOT NULL, "code_hash" bytea NOT NULL, "application_id" bigint NOT NULL, "user_id" bigint NOT NULL, "scopes" text array NOT NULL, "redirect_uri" text, "code_challenge" character varying(128), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "consumed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "oauth2_codes_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "oauth2_codes_code_hash_key" ON "oauth2_codes"  ("code_hash") ',
    );
    await queryRunner.query(
      'CREATE INDEX "oauth2_codes_application_id_idx" ON "oauth2_codes"  ("application_id") ',
    );
    await queryRunner.query(
      'CREATE INDEX "oauth2_codes_user_id_idx" ON "oauth2_codes"  ("user_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth2_grants" ("id" bigint NOT NULL, "application_id" bigint NOT NULL, "user_id" bigint NOT NULL, "code_id" bigint, "scopes" text array NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "oauth2_grants_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "oauth2_grants_application_id_idx" ON "oauth2_grants"  ("application_id") ',
    );
    await queryRunner.query(
      'CREATE INDEX "oauth2_grants_user_id_idx" ON "oauth2_grants"  ("user_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "oauth2_grants_code_id_key" ON "oauth2_grants"  ("code_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth2_tokens" ("id" bigint NOT NULL, "token_hash" bytea NOT NULL, "kind" character varying(16) NOT NULL, "grant_id" bigint NOT NULL, "application_id" bigint NOT NULL, "user_id" bigint NOT NULL, "scopes" text array NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "oauth2_tokens_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "oauth2_tokens_token_hash_key" ON "oauth2_tokens"  ("token_hash") ',
    );
    await queryRunner.query(
      'CREATE INDEX "oauth2_tokens_grant_id_idx" ON "oauth2_tokens"  ("grant_id") ',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_applications" ADD CONSTRAINT "oauth2_applications_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_applications" ADD CONSTRAINT "oauth2_applications_bot_user_id_fkey" FOREIGN KEY ("bot_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_authorizations" ADD CONSTRAINT "oauth2_authorizations_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_authorizations" ADD CONSTRAINT "oauth2_authorizations_application_id_fkey" FOREIGN KEY ("application_id") REFERENCES "oauth2_applications"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_codes" ADD CONSTRAINT "oauth2_codes_application_id_fkey" FOREIGN KEY ("application_id") REFERENCES "oauth2_applications"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_codes" ADD CONSTRAINT "oauth2_codes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_grants" ADD CONSTRAINT "oauth2_grants_application_id_fkey" FOREIGN KEY ("application_id") REFERENCES "oauth2_applications"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_grants" ADD CONSTRAINT "oauth2_grants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_grants" ADD CONSTRAINT "oauth2_grants_code_id_fkey" FOREIGN KEY ("code_id") REFERENCES "oauth2_codes"("id") ON DELETE SET NULL ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_tokens" ADD CONSTRAINT "oauth2_tokens_grant_id_fkey" FOREIGN KEY ("grant_id") REFERENCES "oauth2_grants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "oauth2_tokens" DROP CONSTRAINT "oauth2_tokens_grant_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_grants" DROP CONSTRAINT "oauth2_grants_code_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_grants" DROP CONSTRAINT "oauth2_grants_user_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_grants" DROP CONSTRAINT "oauth2_grants_application_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_codes" DROP CONSTRAINT "oauth2_codes_user_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_codes" DROP CONSTRAINT "oauth2_codes_application_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_authorizations" DROP CONSTRAINT "oauth2_authorizations_application_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_authorizations" DROP CONSTRAINT "oauth2_authorizations_user_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_applications" DROP CONSTRAINT "oauth2_applications_bot_user_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth2_applications" DROP CONSTRAINT "oauth2_applications_owner_id_fkey"',
    );
    await queryRunner.query('DROP INDEX "public"."oauth2_tokens_grant_id_idx"');
    await queryRunner.query('DROP INDEX "public"."oauth2_tokens_token_hash_key"');
    await queryRunner.query('DROP TABLE "oauth2_tokens"');
    await queryRunner.query('DROP INDEX "public"."oauth2_grants_code_id_key"');
    await queryRunner.query('DROP INDEX "public"."oauth2_grants_user_id_idx"');
    await queryRunner.query('DROP INDEX "public"."oauth2_grants_application_id_idx"');
    await queryRunner.query('DROP TABLE "oauth2_grants"');
    await queryRunner.query('DROP INDEX "public"."oauth2_codes_user_id_idx"');
    await queryRunner.query('DROP INDEX "public"."oauth2_codes_application_id_idx"');
    await queryRunner.query('DROP INDEX "public"."oauth2_codes_code_hash_key"');
    await queryRunner.query('DROP TABLE "oauth2_codes"');
    await queryRunner.query(
      'DROP INDEX "public"."oauth2_authorizations_user_id_application_id_key"',
    );
    await queryRunner.query('DROP INDEX "public"."oauth2_authorizations_application_id_idx"');
    await queryRunner.query('DROP TABLE "oauth2_authorizations"');
    await queryRunner.query('DROP INDEX "public"."oauth2_applications_bot_user_id_key"');
    await queryRunner.query('DROP INDEX "public"."oauth2_applications_owner_id_idx"');
    await queryRunner.query('DROP TABLE "oauth2_applications"');
  }
}
