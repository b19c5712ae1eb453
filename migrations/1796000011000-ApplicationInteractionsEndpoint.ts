import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 29: an application's `interactions_endpoint_url`, where interactions are POSTed, signed
 * with its Ed25519 key (null: they arrive on the gateway). Set only once verified (a signed PING
 * answered, a forged one refused).
 */
export class ApplicationInteractionsEndpoint1796000011000 implements MigrationInterface {
  name = 'ApplicationInteractionsEndpoint1796000011000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "oauth2_applications" ADD "interactions_endpoint_url" character varying(2048)',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "oauth2_applications" DROP COLUMN "interactions_endpoint_url"',
    );
  }
}
