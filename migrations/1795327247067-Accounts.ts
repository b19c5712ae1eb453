import { MigrationInterface, QueryRunner } from 'typeorm';

export class Accounts1795327247067 implements MigrationInterface {
  name = 'Accounts1795327247067';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "users" ("id" bigint NOT NULL, "username" character varying(32) NOT NULL, "discriminator" character varying(4) NOT NULL, "global_name" character varying(32), "email" character varying(254), "email_verified" boolean NOT NULL DEFAULT false, "password_hash" text, "date_of_birth" date, "phone" character varying(32), "flags" integer NOT NULL DEFAULT \'0\', "acls" text array NOT NULL DEFAULT \'{}\', "avatar" character varying(64), "avatar_color" integer, "banner" character varying(64), "bio" character varying(1024), "bot" boolean NOT NULL DEFAULT false, "system" boolean NOT NULL DEFAULT false, "mfa_enabled" boolean NOT NULL DEFAULT false, "authenticator_types" smallint array NOT NULL DEFAULT \'{}\', "password_changed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "users_pkey" PRIMARY KEY ("id"))',
    );
    // Case-insensitive uniqueness (declared with synchronize: false on the entity).
    await queryRunner.query(
      'CREATE UNIQUE INDEX "users_username_discriminator_key" ON "users" (lower("username"), "discriminator")',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "users_email_key" ON "users" (lower("email")) WHERE "email" IS NOT NULL',
    );
    await queryRunner.query(
      'CREATE TABLE "auth_sessions" ("id" bigint NOT NULL, "user_id" bigint NOT NULL, "token_hash" bytea NOT NULL, "client_info" jsonb, "ip" inet, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "approx_last_used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "auth_sessions_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "auth_sessions_user_id_idx" ON "auth_sessions"  ("user_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "auth_sessions_token_hash_key" ON "auth_sessions"  ("token_hash") ',
    );
    await queryRunner.query(
      'ALTER TABLE "auth_sessions" ADD CONSTRAINT "auth_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "auth_sessions" DROP CONSTRAINT "auth_sessions_user_id_fkey"',
    );
    await queryRunner.query('DROP INDEX "public"."auth_sessions_token_hash_key"');
    await queryRunner.query('DROP INDEX "public"."auth_sessions_user_id_idx"');
    await queryRunner.query('DROP TABLE "auth_sessions"');
    await queryRunner.query('DROP INDEX "public"."users_email_key"');
    await queryRunner.query('DROP INDEX "public"."users_username_discriminator_key"');
    await queryRunner.query('DROP TABLE "users"');
  }
}
