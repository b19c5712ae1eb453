import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Messages as bot libraries read them (issue 21): the members a message mentions (user partials
 * as they were when it was posted), whether it mentions @everyone, and when its author last
 * edited it. Existing rows get no mentions, no @everyone and no edit — what they had.
 */
export class MessageEditsMentions1795700000000 implements MigrationInterface {
  name = 'MessageEditsMentions1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" ADD "mentions" jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(
      'ALTER TABLE "messages" ADD "mention_everyone" boolean NOT NULL DEFAULT false',
    );
    await queryRunner.query('ALTER TABLE "messages" ADD "edited_at" TIMESTAMP WITH TIME ZONE');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "messages" DROP COLUMN "edited_at"');
    await queryRunner.query('ALTER TABLE "messages" DROP COLUMN "mention_everyone"');
    await queryRunner.query('ALTER TABLE "messages" DROP COLUMN "mentions"');
  }
}
