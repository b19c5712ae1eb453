import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhooks: an optional inbound signing secret, sealed under SECRET_KEY like the token. */
export class WebhookSigningSecret1795583171420 implements MigrationInterface {
  name = 'WebhookSigningSecret1795583171420';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhooks" ADD "signing_secret_encrypted" text');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhooks" DROP COLUMN "signing_secret_encrypted"');
  }
}
