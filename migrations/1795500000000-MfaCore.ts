import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MFA tickets count wrong codes (5 spend the ticket); sessions remember when their holder last
 * proved a credential (the re-authentication grace of sensitive routes). Existing sessions start
 * with their creation time: they were all made by a login.
 */
export class MfaCore1795500000000 implements MigrationInterface {
  name = 'MfaCore1795500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "auth_tickets" ADD "failed_attempts" smallint NOT NULL DEFAULT \'0\'',
    );
    await queryRunner.query('ALTER TABLE "auth_sessions" ADD "proven_at" TIMESTAMP WITH TIME ZONE');
    await queryRunner.query('UPDATE "auth_sessions" SET "proven_at" = "created_at"');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "auth_sessions" DROP COLUMN "proven_at"');
    await queryRunner.query('ALTER TABLE "auth_tickets" DROP COLUMN "failed_attempts"');
  }
}
