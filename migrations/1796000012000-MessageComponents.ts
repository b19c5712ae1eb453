import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Discord's message components (action rows of buttons and select menus) on the messages of bots,
 * stored as sent (validated and stripped of unknown fields).
 */
export class MessageComponents1796000012000 implements MigrationInterface {
  name = 'MessageComponents1796000012000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" ADD "components" jsonb NOT NULL DEFAULT '[]'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "components"`);
  }
}
