import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reactions (Discord's unicode emoji reactions): one row per (message, emoji, user). They go with
 * their message (MESSAGE_DELETE announces that) and with their user. The primary key orders a
 * message's reactors of one emoji by user id, which is how Discord's Get Reactions pages them.
 */
export class MessageReactions1796000002000 implements MigrationInterface {
  name = 'MessageReactions1796000002000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "message_reactions" ("message_id" bigint NOT NULL, "emoji" text NOT NULL, "user_id" bigint NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "message_reactions_pkey" PRIMARY KEY ("message_id", "emoji", "user_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "message_reactions_user_id_idx" ON "message_reactions" ("user_id") ',
    );
    await queryRunner.query(
      'ALTER TABLE "message_reactions" ADD CONSTRAINT "message_reactions_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "message_reactions" ADD CONSTRAINT "message_reactions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "message_reactions" DROP CONSTRAINT "message_reactions_user_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "message_reactions" DROP CONSTRAINT "message_reactions_message_id_fkey"',
    );
    await queryRunner.query('DROP INDEX "public"."message_reactions_user_id_idx"');
    await queryRunner.query('DROP TABLE "message_reactions"');
  }
}
