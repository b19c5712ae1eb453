import { MigrationInterface, QueryRunner } from 'typeorm';

/** Placeholder: filled in by the Bans work before it lands. */
export class Bans1795468870876 implements MigrationInterface {
  name = 'Bans1795468870876';

  public async up(_queryRunner: QueryRunner): Promise<void> {}

  public async down(_queryRunner: QueryRunner): Promise<void> {}
}
