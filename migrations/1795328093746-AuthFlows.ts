import { MigrationInterface, QueryRunner } from 'typeorm';

export class AuthFlows1795328093746 implements MigrationInterface {
  name = 'AuthFlows1795328093746';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "email_tokens" ("id" bigint NOT NULL, "user_id" bigint NOT NULL, "kind" character varying(32) NOT NULL, "token_hash" bytea NOT NULL, "data" jsonb, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "email_tokens_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "email_tokens_user_id_idx" ON "email_tokens"  ("user_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "email_tokens_token_hash_key" ON "email_tokens"  ("token_hash") ',
    );
    await queryRunner.query(
      'CREATE TABLE "auth_tickets" ("id" bigint NOT NULL, "user_id" bigint NOT NULL, "kind" character varying(32) NOT NULL, "ticket_hash" bytea NOT NULL, "ip" inet, "user_agent" character varying(512), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "authorized_at" TIMESTAMP WITH TIME ZONE, "used_at" TIMESTAMP WITH TIME ZONE, "last_sent_at" TIMESTAMP WITH TIME ZONE, "resend_count" smallint NOT NULL DEFAULT \'0\', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "auth_tickets_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "auth_tickets_user_id_idx" ON "auth_tickets"  ("user_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "auth_tickets_ticket_hash_key" ON "auth_tickets"  ("ticket_hash") ',
    );
    await queryRunner.query(
      'CREATE TABLE "auth_handoffs" ("id" bigint NOT NULL, "code_hash" bytea NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "user_id" bigint, "ip" inet, "user_agent" character varying(512), "sealed_token" text, "completed_at" TIMESTAMP WITH TIME ZONE, "read_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "auth_handoffs_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "auth_handoffs_code_hash_key" ON "auth_handoffs"  ("code_hash") ',
    );
    await queryRunner.query(
      'CREATE TABLE "authorized_ips" ("user_id" bigint NOT NULL, "ip" inet NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "authorized_ips_pkey" PRIMARY KEY ("user_id", "ip"))',
    );
    await queryRunner.query(
      'ALTER TABLE "email_tokens" ADD CONSTRAINT "email_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "auth_tickets" ADD CONSTRAINT "auth_tickets_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "auth_handoffs" ADD CONSTRAINT "auth_handoffs_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "authorized_ips" ADD CONSTRAINT "authorized_ips_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "authorized_ips" DROP CONSTRAINT "authorized_ips_user_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "auth_handoffs" DROP CONSTRAINT "auth_handoffs_user_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "auth_tickets" DROP CONSTRAINT "auth_tickets_user_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "email_tokens" DROP CONSTRAINT "email_tokens_user_id_fkey"',
    );
    await queryRunner.query('DROP TABLE "authorized_ips"');
    await queryRunner.query('DROP INDEX "public"."auth_handoffs_code_hash_key"');
    await queryRunner.query('DROP TABLE "auth_handoffs"');
    await queryRunner.query('DROP INDEX "public"."auth_tickets_ticket_hash_key"');
    await queryRunner.query('DROP INDEX "public"."auth_tickets_user_id_idx"');
    await queryRunner.query('DROP TABLE "auth_tickets"');
    await queryRunner.query('DROP INDEX "public"."email_tokens_token_hash_key"');
    await queryRunner.query('DROP INDEX "public"."email_tokens_user_id_idx"');
    await queryRunner.query('DROP TABLE "email_tokens"');
  }
}
