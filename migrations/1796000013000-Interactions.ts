import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Interactions (Discord's application commands, components and modals): one row per invocation,
 * shared by every instance — the token's hash, the 3-second first answer and the 15-minute
 * follow-up window, and which outcome (answered or failed) was announced. Messages an interaction
 * posts carry its metadata; ephemeral ones live beside it, never in a channel's history.
 */
export class Interactions1796000013000 implements MigrationInterface {
  name = 'Interactions1796000013000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "interactions" (
         "id" bigint NOT NULL,
         "application_id" bigint NOT NULL,
         "type" smallint NOT NULL,
         "guild_id" bigint NOT NULL,
         "channel_id" bigint NOT NULL,
         "user_id" bigint NOT NULL,
         "token_hash" bytea NOT NULL,
         "nonce" character varying(25),
         "message_id" bigint,
         "metadata" jsonb NOT NULL,
         "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
         "responded_at" TIMESTAMP WITH TIME ZONE,
         "response_type" smallint,
         "failed_at" TIMESTAMP WITH TIME ZONE,
         "original_message_id" bigint,
         CONSTRAINT "interactions_pkey" PRIMARY KEY ("id")
       )`,
    );
    for (const [column, table] of [
      ['application_id', 'oauth2_applications'],
      ['guild_id', 'guilds'],
      ['user_id', 'users'],
    ]) {
      await queryRunner.query(
        `ALTER TABLE "interactions" ADD CONSTRAINT "interactions_${column}_fkey"
           FOREIGN KEY ("${column}") REFERENCES "${table}"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
      );
    }
    // The 3-second sweep reads the unanswered ones; the cleanup the old ones.
    await queryRunner.query(
      `CREATE INDEX "interactions_unanswered_idx" ON "interactions" ("created_at")
         WHERE "responded_at" IS NULL AND "failed_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "interactions_created_at_idx" ON "interactions" ("created_at")`,
    );
    await queryRunner.query(
      `CREATE TABLE "ephemeral_messages" (
         "id" bigint NOT NULL,
         "interaction_id" bigint NOT NULL,
         "channel_id" bigint NOT NULL,
         "user_id" bigint NOT NULL,
         "message" jsonb NOT NULL,
         CONSTRAINT "ephemeral_messages_pkey" PRIMARY KEY ("id")
       )`,
    );
    await queryRunner.query(
      `ALTER TABLE "ephemeral_messages" ADD CONSTRAINT "ephemeral_messages_interaction_id_fkey"
         FOREIGN KEY ("interaction_id") REFERENCES "interactions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE INDEX "ephemeral_messages_interaction_id_idx" ON "ephemeral_messages" ("interaction_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "messages"
         ADD "type" smallint NOT NULL DEFAULT 0,
         ADD "flags" integer NOT NULL DEFAULT 0,
         ADD "application_id" bigint,
         ADD "interaction_id" bigint,
         ADD "interaction_metadata" jsonb`,
    );
    await queryRunner.query(
      `CREATE INDEX "messages_interaction_id_idx" ON "messages" ("interaction_id")
         WHERE "interaction_id" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "messages_interaction_id_idx"');
    await queryRunner.query(
      `ALTER TABLE "messages" DROP "type", DROP "flags", DROP "application_id",
         DROP "interaction_id", DROP "interaction_metadata"`,
    );
    await queryRunner.query('DROP TABLE "ephemeral_messages"');
    await queryRunner.query('DROP TABLE "interactions"');
  }
}
