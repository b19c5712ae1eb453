import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bot-managed roles (issue 27): the role a bot gets when it is installed is Discord's managed
 * role — `managed: true`, `tags.bot_id` — and goes with the bot. `bot_id` names the bot user;
 * existing install roles are recognised as the roles held by exactly one member, a bot, whose
 * role it was made for (the role named after the application when it was installed).
 */
export class ManagedRoles1795800001000 implements MigrationInterface {
  name = 'ManagedRoles1795800001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "guild_roles" ADD "bot_id" bigint');
    await queryRunner.query(
      `UPDATE guild_roles r SET bot_id = m.user_id
         FROM guild_members m JOIN users u ON u.id = m.user_id AND u.bot
        WHERE m.guild_id = r.guild_id AND r.id <> r.guild_id AND m.roles = ARRAY[r.id]
          AND (SELECT count(*) FROM guild_members o WHERE o.guild_id = r.guild_id AND r.id = ANY(o.roles)) = 1`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "guild_roles" DROP COLUMN "bot_id"');
  }
}
