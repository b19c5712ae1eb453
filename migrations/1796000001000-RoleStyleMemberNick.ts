import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Discord's role management and member edits: a role's colour, whether it is shown apart
 * (`hoist`), whether anyone may mention it, and its unicode emoji; a member's per-guild nickname.
 */
export class RoleStyleMemberNick1796000001000 implements MigrationInterface {
  name = 'RoleStyleMemberNick1796000001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "guild_roles" ADD "color" integer NOT NULL DEFAULT 0,
         ADD "hoist" boolean NOT NULL DEFAULT false,
         ADD "mentionable" boolean NOT NULL DEFAULT false,
         ADD "unicode_emoji" text`,
    );
    await queryRunner.query('ALTER TABLE "guild_members" ADD "nick" character varying(32)');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "guild_members" DROP COLUMN "nick"');
    await queryRunner.query(
      `ALTER TABLE "guild_roles" DROP COLUMN "unicode_emoji", DROP COLUMN "mentionable",
         DROP COLUMN "hoist", DROP COLUMN "color"`,
    );
  }
}
