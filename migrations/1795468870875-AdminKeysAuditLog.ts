import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Admin API keys (SHA-256 of the key, ACL list, expiry; a `k:<id>` change notification for the
 * credential caches) and the audit log, with a generated tsvector and a GIN index for search.
 */

// Must equal AUDIT_SEARCH_EXPRESSION() in audit-log.entity.ts as of this migration.
const SEARCH_EXPRESSION = `setweight(to_tsvector('english'::regconfig, translate(action, '._:', '   ')), 'A') || setweight(to_tsvector('english'::regconfig, coalesce(reason, '')), 'B') || to_tsvector('english'::regconfig, coalesce(target_type, '') || ' ' || coalesce(target_id, '')) || jsonb_to_tsvector('english'::regconfig, metadata, '["string", "numeric"]')`;

export class AdminKeysAuditLog1795468870875 implements MigrationInterface {
  name = 'AdminKeysAuditLog1795468870875';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "audit_log_entries" ("id" bigint NOT NULL, "actor_type" character varying(16) NOT NULL, "actor_id" bigint, "actor_user_id" bigint, "action" character varying(64) NOT NULL, "target_type" character varying(32), "target_id" character varying(320), "reason" character varying(512), "metadata" jsonb NOT NULL DEFAULT \'{}\', "ip" inet, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "search" tsvector GENERATED ALWAYS AS (setweight(to_tsvector(\'english\'::regconfig, translate(action, \'._:\', \'   \')), \'A\') || setweight(to_tsvector(\'english\'::regconfig, coalesce(reason, \'\')), \'B\') || to_tsvector(\'english\'::regconfig, coalesce(target_type, \'\') || \' \' || coalesce(target_id, \'\')) || jsonb_to_tsvector(\'english\'::regconfig, metadata, \'["string", "numeric"]\')) STORED NOT NULL, CONSTRAINT "audit_log_entries_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "audit_log_entries_target_idx" ON "audit_log_entries"  ("target_type", "target_id", "id") ',
    );
    await queryRunner.query(
      'CREATE INDEX "audit_log_entries_action_idx" ON "audit_log_entries"  ("action", "id") ',
    );
    await queryRunner.query(
      'CREATE INDEX "audit_log_entries_actor_idx" ON "audit_log_entries"  ("actor_id", "id") ',
    );
    await queryRunner.query(
      'CREATE INDEX "audit_log_entries_created_at_idx" ON "audit_log_entries"  ("created_at", "id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "admin_api_keys" ("id" bigint NOT NULL, "user_id" bigint NOT NULL, "name" character varying(100) NOT NULL, "token_hash" bytea NOT NULL, "acls" text array NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "admin_api_keys_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "admin_api_keys_user_id_idx" ON "admin_api_keys"  ("user_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "admin_api_keys_token_hash_key" ON "admin_api_keys"  ("token_hash") ',
    );
    await queryRunner.query(
      'ALTER TABLE "admin_api_keys" ADD CONSTRAINT "admin_api_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    // TypeORM compares generated columns through typeorm_metadata (migration:check must agree);
    // it creates that table itself only when its own data source knows the entities.
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "typeorm_metadata" ("type" character varying NOT NULL,
         "database" character varying, "schema" character varying, "table" character varying,
         "name" character varying, "value" text)`,
    );
    await queryRunner.query(
      `INSERT INTO "typeorm_metadata" ("database", "schema", "table", "type", "name", "value")
       VALUES (current_database(), current_schema(), 'audit_log_entries', 'GENERATED_COLUMN', 'search', $1)`,
      [SEARCH_EXPRESSION],
    );
    await queryRunner.query(
      'CREATE INDEX "audit_log_entries_search_idx" ON "audit_log_entries" USING gin ("search")',
    );
    // A deleted key, or one whose ACLs, hash or expiry change, is dropped by every instance's cache.
    await queryRunner.query(`
      CREATE TRIGGER admin_api_keys_notify_credential
        AFTER DELETE OR UPDATE OF token_hash, acls, expires_at, user_id ON admin_api_keys
        FOR EACH ROW EXECUTE FUNCTION parley_notify_credential('k')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER admin_api_keys_notify_credential ON admin_api_keys');
    await queryRunner.query('DROP INDEX "public"."audit_log_entries_search_idx"');
    await queryRunner.query(
      'ALTER TABLE "admin_api_keys" DROP CONSTRAINT "admin_api_keys_user_id_fkey"',
    );
    await queryRunner.query('DROP INDEX "public"."admin_api_keys_token_hash_key"');
    await queryRunner.query('DROP INDEX "public"."admin_api_keys_user_id_idx"');
    await queryRunner.query('DROP TABLE "admin_api_keys"');
    await queryRunner.query('DROP INDEX "public"."audit_log_entries_created_at_idx"');
    await queryRunner.query('DROP INDEX "public"."audit_log_entries_actor_idx"');
    await queryRunner.query('DROP INDEX "public"."audit_log_entries_action_idx"');
    await queryRunner.query('DROP INDEX "public"."audit_log_entries_target_idx"');
    await queryRunner.query('DROP TABLE "audit_log_entries"');
    await queryRunner.query(
      `DELETE FROM "typeorm_metadata" WHERE "type" = 'GENERATED_COLUMN' AND "name" = 'search'
          AND "database" = current_database() AND "schema" = current_schema() AND "table" = 'audit_log_entries'`,
    );
  }
}
