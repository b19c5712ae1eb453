import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Discord's guild bans: a banned user is no member and cannot become one again until unbanned.
 * The reason is the ban request's `X-Audit-Log-Reason`.
 */
export class GuildBans1796000003000 implements MigrationInterface {
  name = 'GuildBans1796000003000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "guild_bans" (
         "guild_id" bigint NOT NULL,
         "user_id" bigint NOT NULL,
         "reason" character varying(512),
         "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
         CONSTRAINT "guild_bans_pkey" PRIMARY KEY ("guild_id", "user_id")
       )`,
    );
    await queryRunner.query(
      `ALTER TABLE "guild_bans" ADD CONSTRAINT "guild_bans_guild_id_fkey" FOREIGN KEY ("guild_id")
         REFERENCES "guilds"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "guild_bans" ADD CONSTRAINT "guild_bans_user_id_fkey" FOREIGN KEY ("user_id")
         REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "guild_bans"');
  }
}
