import { MigrationInterface, QueryRunner } from 'typeorm';

/** VIEW_CHANNEL | SEND_MESSAGES | READ_MESSAGE_HISTORY: @everyone's permissions in a new guild until now. */
const OLD_DEFAULT = (1n << 10n) | (1n << 11n) | (1n << 16n);
const USE_APPLICATION_COMMANDS = 1n << 31n;

/**
 * Discord's application commands (global, or of one guild), the per-day create counter behind
 * Discord's 200 creates a day, and USE_APPLICATION_COMMANDS for @everyone: new guilds get it (as
 * on Discord); existing guilds whose @everyone still has the old default get it too, so their
 * members can use the bots' commands. An @everyone someone changed is left as it is.
 */
export class ApplicationCommands1796000010000 implements MigrationInterface {
  name = 'ApplicationCommands1796000010000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "application_commands" (
         "id" bigint NOT NULL,
         "application_id" bigint NOT NULL,
         "guild_id" bigint,
         "type" smallint NOT NULL,
         "name" character varying(32) NOT NULL,
         "name_localizations" jsonb,
         "description" character varying(100) NOT NULL DEFAULT '',
         "description_localizations" jsonb,
         "options" jsonb NOT NULL DEFAULT '[]',
         "default_member_permissions" character varying(20),
         "dm_permission" boolean NOT NULL DEFAULT true,
         "contexts" smallint array,
         "integration_types" smallint array NOT NULL DEFAULT '{0}',
         "nsfw" boolean NOT NULL DEFAULT false,
         "version" bigint NOT NULL,
         CONSTRAINT "application_commands_pkey" PRIMARY KEY ("id")
       )`,
    );
    await queryRunner.query(
      `CREATE INDEX "application_commands_guild_id_idx" ON "application_commands" ("guild_id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "application_commands_global_name_key" ON "application_commands"
         ("application_id", "type", "name") WHERE guild_id IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "application_commands_guild_name_key" ON "application_commands"
         ("application_id", "guild_id", "type", "name") WHERE guild_id IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "application_commands" ADD CONSTRAINT "application_commands_application_id_fkey"
         FOREIGN KEY ("application_id") REFERENCES "oauth2_applications"("id")
         ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "application_commands" ADD CONSTRAINT "application_commands_guild_id_fkey"
         FOREIGN KEY ("guild_id") REFERENCES "guilds"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "application_command_creates" (
         "application_id" bigint NOT NULL,
         "scope_id" bigint NOT NULL,
         "day" date NOT NULL,
         "count" integer NOT NULL DEFAULT 0,
         CONSTRAINT "application_command_creates_pkey" PRIMARY KEY ("application_id", "scope_id", "day")
       )`,
    );
    await queryRunner.query(
      `UPDATE "guild_roles" SET "permissions" = $1 WHERE "id" = "guild_id" AND "permissions" = $2`,
      [String(OLD_DEFAULT | USE_APPLICATION_COMMANDS), String(OLD_DEFAULT)],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "guild_roles" SET "permissions" = $1 WHERE "id" = "guild_id" AND "permissions" = $2`,
      [String(OLD_DEFAULT), String(OLD_DEFAULT | USE_APPLICATION_COMMANDS)],
    );
    await queryRunner.query('DROP TABLE "application_command_creates"');
    await queryRunner.query('DROP TABLE "application_commands"');
  }
}
