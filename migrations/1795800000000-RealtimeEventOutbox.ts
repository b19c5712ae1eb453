import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Durable realtime events (issue 27, ARCHITECTURE.md §7): every event is written to
 * `realtime_events` in the transaction of the change that causes it (a transactional outbox).
 * The relay numbers committed events in one gap-free sequence (`position`, kept in the single
 * row of `realtime_event_log`) and hands them to the instances; the numbered rows stay for the
 * retention window so that any instance can fill a gap or replay a resumed session from here.
 */
export class RealtimeEventOutbox1795800000000 implements MigrationInterface {
  name = 'RealtimeEventOutbox1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "realtime_events" (
        "id" BIGSERIAL NOT NULL,
        "position" bigint,
        "type" character varying(64) NOT NULL,
        "guild_id" bigint,
        "channel_id" bigint,
        "user_id" bigint,
        "author_id" bigint,
        "mention_ids" bigint array,
        "data" text NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "realtime_events_pkey" PRIMARY KEY ("id"))`,
    );
    // Positions are indexed once numbered: a pending row (just written, in the transaction of its
    // change) costs no entry; the relay's UPDATE writes a new row version, which gets it then.
    // Trimming walks this index too (EventStore.trim): no index on age.
    await queryRunner.query(
      'CREATE UNIQUE INDEX "realtime_events_position_idx" ON "realtime_events" ("position") WHERE "position" IS NOT NULL',
    );
    // What the relay has not numbered yet, in the order it was written.
    await queryRunner.query(
      'CREATE INDEX "realtime_events_pending_idx" ON "realtime_events" ("id") WHERE "position" IS NULL',
    );
    await queryRunner.query(
      `CREATE TABLE "realtime_event_log" (
        "id" smallint NOT NULL,
        "last_position" bigint NOT NULL DEFAULT '0',
        CONSTRAINT "realtime_event_log_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "realtime_event_log_single_row" CHECK ("id" = 1))`,
    );
    await queryRunner.query(
      'INSERT INTO "realtime_event_log" ("id", "last_position") VALUES (1, 0)',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "realtime_event_log"');
    await queryRunner.query('DROP INDEX "realtime_events_pending_idx"');
    await queryRunner.query('DROP INDEX "realtime_events_position_idx"');
    await queryRunner.query('DROP TABLE "realtime_events"');
  }
}
