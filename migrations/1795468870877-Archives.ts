import { MigrationInterface, QueryRunner } from 'typeorm';

/** Placeholder: filled in by the Archives work before it lands. */
export class Archives1795468870877 implements MigrationInterface {
  name = 'Archives1795468870877';

  public async up(_queryRunner: QueryRunner): Promise<void> {}

  public async down(_queryRunner: QueryRunner): Promise<void> {}
}
