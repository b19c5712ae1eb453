import { MigrationInterface, QueryRunner } from 'typeorm';

export class GuildsChannelsMessagesWebhooks1795327793686 implements MigrationInterface {
  name = 'GuildsChannelsMessagesWebhooks1795327793686';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "guilds" ("id" bigint NOT NULL, "name" character varying(100) NOT NULL, "owner_id" bigint NOT NULL, "icon" character varying(64), "banner" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "guilds_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE INDEX "guilds_owner_id_idx" ON "guilds"  ("owner_id") ');
    await queryRunner.query(
      'CREATE TABLE "channels" ("id" bigint NOT NULL, "guild_id" bigint NOT NULL, "name" character varying(100) NOT NULL, "type" smallint NOT NULL DEFAULT \'0\', "position" integer NOT NULL DEFAULT \'0\', CONSTRAINT "channels_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE INDEX "channels_guild_id_idx" ON "channels"  ("guild_id") ');
    await queryRunner.query(
      'CREATE TABLE "messages" ("id" bigint NOT NULL, "channel_id" bigint NOT NULL, "author_id" bigint, "webhook_id" bigint, "webhook_name" character varying(80), "webhook_avatar" text, "content" character varying(2000) NOT NULL DEFAULT \'\', "embeds" jsonb NOT NULL DEFAULT \'[]\', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "messages_pkey" PRIMARY KEY ("id"))',
    );
    // Newest-first pages of a channel; also how "last message" is derived (declared with
    // synchronize: false on the entity because TypeORM cannot express DESC).
    await queryRunner.query(
      'CREATE INDEX "messages_channel_id_id_idx" ON "messages" ("channel_id", "id" DESC)',
    );
    await queryRunner.query(
      'CREATE TABLE "guild_members" ("guild_id" bigint NOT NULL, "user_id" bigint NOT NULL, "roles" bigint array NOT NULL DEFAULT \'{}\', "joined_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "guild_members_pkey" PRIMARY KEY ("guild_id", "user_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "guild_members_user_id_idx" ON "guild_members"  ("user_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "guild_roles" ("id" bigint NOT NULL, "guild_id" bigint NOT NULL, "name" character varying(100) NOT NULL, "permissions" bigint NOT NULL DEFAULT \'0\', "position" integer NOT NULL DEFAULT \'0\', CONSTRAINT "guild_roles_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "guild_roles_guild_id_idx" ON "guild_roles"  ("guild_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "webhooks" ("id" bigint NOT NULL, "type" smallint NOT NULL DEFAULT \'1\', "guild_id" bigint NOT NULL, "channel_id" bigint NOT NULL, "user_id" bigint, "name" character varying(80) NOT NULL, "avatar" character varying(64), "token_hash" bytea NOT NULL, "token_encrypted" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE INDEX "webhooks_guild_id_idx" ON "webhooks"  ("guild_id") ');
    await queryRunner.query(
      'CREATE INDEX "webhooks_channel_id_idx" ON "webhooks"  ("channel_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "webhook_deliveries" ("webhook_id" bigint NOT NULL, "delivery_id" character varying(100) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("webhook_id", "delivery_id"))',
    );
    await queryRunner.query(
      'ALTER TABLE "guilds" ADD CONSTRAINT "guilds_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "channels" ADD CONSTRAINT "channels_guild_id_fkey" FOREIGN KEY ("guild_id") REFERENCES "guilds"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "messages" ADD CONSTRAINT "messages_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "messages" ADD CONSTRAINT "messages_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "guild_members" ADD CONSTRAINT "guild_members_guild_id_fkey" FOREIGN KEY ("guild_id") REFERENCES "guilds"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "guild_members" ADD CONSTRAINT "guild_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "guild_roles" ADD CONSTRAINT "guild_roles_guild_id_fkey" FOREIGN KEY ("guild_id") REFERENCES "guilds"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_guild_id_fkey" FOREIGN KEY ("guild_id") REFERENCES "guilds"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_webhook_id_fkey"',
    );
    await queryRunner.query('ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_user_id_fkey"');
    await queryRunner.query('ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_channel_id_fkey"');
    await queryRunner.query('ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_guild_id_fkey"');
    await queryRunner.query(
      'ALTER TABLE "guild_roles" DROP CONSTRAINT "guild_roles_guild_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "guild_members" DROP CONSTRAINT "guild_members_user_id_fkey"',
    );
    await queryRunner.query(
      'ALTER TABLE "guild_members" DROP CONSTRAINT "guild_members_guild_id_fkey"',
    );
    await queryRunner.query('ALTER TABLE "messages" DROP CONSTRAINT "messages_author_id_fkey"');
    await queryRunner.query('ALTER TABLE "messages" DROP CONSTRAINT "messages_channel_id_fkey"');
    await queryRunner.query('ALTER TABLE "channels" DROP CONSTRAINT "channels_guild_id_fkey"');
    await queryRunner.query('ALTER TABLE "guilds" DROP CONSTRAINT "guilds_owner_id_fkey"');
    await queryRunner.query('DROP TABLE "webhook_deliveries"');
    await queryRunner.query('DROP INDEX "public"."webhooks_channel_id_idx"');
    await queryRunner.query('DROP INDEX "public"."webhooks_guild_id_idx"');
    await queryRunner.query('DROP TABLE "webhooks"');
    await queryRunner.query('DROP INDEX "public"."guild_roles_guild_id_idx"');
    await queryRunner.query('DROP TABLE "guild_roles"');
    await queryRunner.query('DROP INDEX "public"."guild_members_user_id_idx"');
    await queryRunner.query('DROP TABLE "guild_members"');
    await queryRunner.query('DROP INDEX "public"."messages_channel_id_id_idx"');
    await queryRunner.query('DROP TABLE "messages"');
    await queryRunner.query('DROP INDEX "public"."channels_guild_id_idx"');
    await queryRunner.query('DROP TABLE "channels"');
    await queryRunner.query('DROP INDEX "public"."guilds_owner_id_idx"');
    await queryRunner.query('DROP TABLE "guilds"');
  }
}
