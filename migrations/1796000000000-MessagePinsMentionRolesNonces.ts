import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Messages as bots use them (issue 28): the roles a message mentions (`<@&id>`), when it was
 * pinned (Discord's pins, 50 per channel), and the nonce of a message posted with
 * `enforce_nonce` (a repeated post with the same nonce by the same author returns it instead of
 * posting again). Both partial indexes cover only the few rows that have the value.
 */
export class MessagePinsMentionRolesNonces1796000000000 implements MigrationInterface {
  name = 'MessagePinsMentionRolesNonces1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "messages" ADD "mention_roles" bigint array NOT NULL DEFAULT '{}',
                              ADD "pinned_at" TIMESTAMP WITH TIME ZONE,
                              ADD "nonce" character varying(25)`,
    );
    await queryRunner.query(
      'CREATE INDEX "messages_channel_pinned_idx" ON "messages" ("channel_id", "pinned_at") WHERE "pinned_at" IS NOT NULL',
    );
    await queryRunner.query(
      'CREATE INDEX "messages_channel_nonce_idx" ON "messages" ("channel_id", "nonce") WHERE "nonce" IS NOT NULL',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "messages_channel_nonce_idx"');
    await queryRunner.query('DROP INDEX "messages_channel_pinned_idx"');
    await queryRunner.query(
      'ALTER TABLE "messages" DROP COLUMN "nonce", DROP COLUMN "pinned_at", DROP COLUMN "mention_roles"',
    );
  }
}
