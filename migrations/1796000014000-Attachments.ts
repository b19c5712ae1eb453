import { MigrationInterface, QueryRunner } from 'typeorm';

/** VIEW_CHANNEL | SEND_MESSAGES | READ_MESSAGE_HISTORY | USE_APPLICATION_COMMANDS: @everyone's default until now. */
const PREVIOUS_DEFAULT = (1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 31n);
const ATTACH_FILES = 1n << 15n;

/**
 * Message attachments: one row per stored file (its blob, sniffed type, size and image
 * dimensions) from the moment its bytes start to arrive — through a multipart message or an
 * upload URL — until its blob is deleted. `message_id` is set when a message takes it and goes
 * back to NULL when that message goes (however it goes: single, bulk, channel or guild deletion),
 * so one sweep finds every blob to delete: rows with no message whose `expires_at` is NULL (the
 * message went) or past (an upload nobody attached). Messages keep their attachments' public
 * fields beside their content (`messages.attachments`), so reading a message never joins them.
 * @everyone gets ATTACH_FILES, as on Discord: in new guilds, and in existing ones whose @everyone
 * still holds the previous default (one a guild changed is left as it is).
 */
export class Attachments1796000014000 implements MigrationInterface {
  name = 'Attachments1796000014000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "attachments" (
         "id" bigint NOT NULL,
         "channel_id" bigint NOT NULL,
         "guild_id" bigint,
         "message_id" bigint,
         "uploader_id" bigint,
         "filename" character varying(1024) NOT NULL,
         "description" character varying(1024),
         "content_type" character varying(255) NOT NULL DEFAULT 'application/octet-stream',
         "size" bigint NOT NULL DEFAULT 0,
         "width" integer,
         "height" integer,
         "flags" integer NOT NULL DEFAULT 0,
         "blob_key" character varying(512) NOT NULL,
         "upload_filename" character varying(1100),
         "declared_size" bigint,
         "stored" boolean NOT NULL DEFAULT false,
         "expires_at" TIMESTAMP WITH TIME ZONE,
         "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
         CONSTRAINT "attachments_pkey" PRIMARY KEY ("id")
       )`,
    );
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "attachments_message_id_fkey"
         FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "attachments_uploader_id_fkey"
         FOREIGN KEY ("uploader_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE INDEX "attachments_message_id_idx" ON "attachments" ("message_id")
         WHERE "message_id" IS NOT NULL`,
    );
    // The sweep: blobs whose message went, and uploads never attached.
    await queryRunner.query(
      `CREATE INDEX "attachments_unattached_idx" ON "attachments" ("expires_at")
         WHERE "message_id" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "attachments_uploader_id_idx" ON "attachments" ("uploader_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "attachments_guild_id_idx" ON "attachments" ("guild_id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "attachments_upload_filename_key" ON "attachments" ("upload_filename")`,
    );
    await queryRunner.query(`ALTER TABLE "messages" ADD "attachments" jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(
      `UPDATE "guild_roles" SET "permissions" = $1 WHERE "id" = "guild_id" AND "permissions" = $2`,
      [String(PREVIOUS_DEFAULT | ATTACH_FILES), String(PREVIOUS_DEFAULT)],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "guild_roles" SET "permissions" = $1 WHERE "id" = "guild_id" AND "permissions" = $2`,
      [String(PREVIOUS_DEFAULT), String(PREVIOUS_DEFAULT | ATTACH_FILES)],
    );
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "attachments"`);
    await queryRunner.query(`DROP TABLE "attachments"`);
  }
}
