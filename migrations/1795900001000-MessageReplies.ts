import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replies (issue 28): a message may reference an earlier message of its channel (Discord's
 * `message_reference`, message type 19). No foreign key: a reply outlives the message it
 * answers, which then reads as `referenced_message: null`, as on Discord.
 */
export class MessageReplies1795900001000 implements MigrationInterface {
  name = 'MessageReplies1795900001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "messages" ADD "reference_id" bigint');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "messages" DROP COLUMN "reference_id"');
  }
}
