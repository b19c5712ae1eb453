import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * E-mail, phone and IP bans. IP bans are `cidr` ranges matched with `>>=` on a GiST index
 * (`inet_ops`, which TypeORM cannot describe: the entity declares it unsynchronized). Every
 * change to `ip_bans` is announced on the `parley_bans` channel (delivered at commit), so each
 * instance drops its per-address ban decisions at once.
 */
export class Bans1795468870876 implements MigrationInterface {
  name = 'Bans1795468870876';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "email_bans" ("reason" character varying(512), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "created_by_key_id" bigint, "created_by_user_id" bigint, "id" bigint NOT NULL, "email" character varying(320) NOT NULL, CONSTRAINT "email_bans_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "email_bans_email_key" ON "email_bans" ("email") ',
    );
    await queryRunner.query(
      'CREATE TABLE "phone_bans" ("reason" character varying(512), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "created_by_key_id" bigint, "created_by_user_id" bigint, "id" bigint NOT NULL, "phone" character varying(16) NOT NULL, CONSTRAINT "phone_bans_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "phone_bans_phone_key" ON "phone_bans" ("phone") ',
    );
    await queryRunner.query(
      'CREATE TABLE "ip_bans" ("reason" character varying(512), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "created_by_key_id" bigint, "created_by_user_id" bigint, "id" bigint NOT NULL, "range" cidr NOT NULL, "reverse_dns" character varying(253), CONSTRAINT "ip_bans_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE UNIQUE INDEX "ip_bans_range_key" ON "ip_bans" ("range") ');
    await queryRunner.query(
      'CREATE INDEX "ip_bans_range_gist_idx" ON "ip_bans" USING gist ("range" inet_ops)',
    );
    await queryRunner.query(`
      CREATE FUNCTION parley_notify_bans() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('parley_bans', TG_ARGV[0]);
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER ip_bans_notify
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ip_bans
        FOR EACH STATEMENT EXECUTE FUNCTION parley_notify_bans('ip')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER ip_bans_notify ON ip_bans');
    await queryRunner.query('DROP FUNCTION parley_notify_bans()');
    await queryRunner.query('DROP INDEX "public"."ip_bans_range_gist_idx"');
    await queryRunner.query('DROP INDEX "public"."ip_bans_range_key"');
    await queryRunner.query('DROP TABLE "ip_bans"');
    await queryRunner.query('DROP INDEX "public"."phone_bans_phone_key"');
    await queryRunner.query('DROP TABLE "phone_bans"');
    await queryRunner.query('DROP INDEX "public"."email_bans_email_key"');
    await queryRunner.query('DROP TABLE "email_bans"');
  }
}
