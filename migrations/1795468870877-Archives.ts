import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * User and guild data archives (admin). The job queue itself (pg-boss) keeps its own schema
 * `pgboss`, created and migrated by pg-boss at start-up.
 */
export class Archives1795468870877 implements MigrationInterface {
  name = 'Archives1795468870877';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "archives" ("id" bigint NOT NULL, "subject_type" character varying(8) NOT NULL, "subject_id" bigint NOT NULL, "requested_by_key_id" bigint, "requested_by_user_id" bigint, "status" character varying(16) NOT NULL DEFAULT 'queued', "progress" smallint NOT NULL DEFAULT '0', "blob_key" character varying(255), "size_bytes" bigint, "error" character varying(1000), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "archives_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      'CREATE INDEX "archives_expires_at_idx" ON "archives"  ("expires_at") ',
    );
    await queryRunner.query(
      'CREATE INDEX "archives_requested_by_key_id_idx" ON "archives"  ("requested_by_key_id", "id") ',
    );
    await queryRunner.query(
      'CREATE INDEX "archives_subject_idx" ON "archives"  ("subject_type", "subject_id", "id") ',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."archives_subject_idx"');
    await queryRunner.query('DROP INDEX "public"."archives_requested_by_key_id_idx"');
    await queryRunner.query('DROP INDEX "public"."archives_expires_at_idx"');
    await queryRunner.query('DROP TABLE "archives"');
  }
}
