import { Client } from 'pg';

/**
 * The mechanical check that every change is announced (issue 27, ARCHITECTURE.md §7): on a test
 * database, triggers record every write to the tables clients see through the gateway —
 * messages, guild_members, guild_roles, guild_bans, channels, guilds, and the columns of users that
 * sessions show, message_reactions — and every event written to the outbox, each with its transaction id. When the run ends,
 * each write must have an event of its kind, for the same row, in the same transaction: a new
 * writer that forgets its event fails CI. Test fixtures that write rows directly mark their
 * transaction (`SET LOCAL parley.fixture = 'on'`, see test/helpers/fixtures.ts) and are skipped.
 */
const INSTALL = `
CREATE TABLE test_write_audit (
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  tbl text NOT NULL,
  op text NOT NULL,
  row_data jsonb NOT NULL
);
CREATE TABLE test_event_audit (
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  type text NOT NULL,
  guild_id bigint,
  channel_id bigint,
  user_id bigint,
  data jsonb NOT NULL
);
CREATE INDEX test_event_audit_txid ON test_event_audit (txid);
CREATE FUNCTION test_audit_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('parley.fixture', true) = 'on' THEN RETURN NULL; END IF;
  INSERT INTO test_write_audit (tbl, op, row_data)
  VALUES (TG_TABLE_NAME, TG_OP, to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END));
  RETURN NULL;
END $$;
CREATE FUNCTION test_audit_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO test_event_audit (type, guild_id, channel_id, user_id, data)
  VALUES (NEW.type, NEW.guild_id, NEW.channel_id, NEW.user_id, NEW.data::jsonb);
  RETURN NULL;
END $$;
CREATE TRIGGER test_audit AFTER INSERT OR UPDATE OR DELETE ON messages
  FOR EACH ROW EXECUTE FUNCTION test_audit_write();
CREATE TRIGGER test_audit AFTER INSERT OR DELETE ON message_reactions
  FOR EACH ROW EXECUTE FUNCTION test_audit_write();
CREATE TRIGGER test_audit AFTER INSERT OR DELETE OR UPDATE ON guild_members
  FOR EACH ROW EXECUTE FUNCTION test_audit_write();
CREATE TRIGGER test_audit AFTER INSERT OR UPDATE OR DELETE ON guild_roles
  FOR EACH ROW EXECUTE FUNCTION test_audit_write();
CREATE TRIGGER test_audit AFTER INSERT OR UPDATE OR DELETE ON guild_bans
  FOR EACH ROW EXECUTE FUNCTION test_audit_write();
CREATE TRIGGER test_audit AFTER INSERT OR UPDATE OR DELETE ON channels
  FOR EACH ROW EXECUTE FUNCTION test_audit_write();
CREATE TRIGGER test_audit AFTER INSERT OR UPDATE OR DELETE ON guilds
  FOR EACH ROW EXECUTE FUNCTION test_audit_write();
CREATE TRIGGER test_audit AFTER UPDATE ON users FOR EACH ROW
  WHEN (OLD.username IS DISTINCT FROM NEW.username OR OLD.discriminator IS DISTINCT FROM NEW.discriminator
     OR OLD.global_name IS DISTINCT FROM NEW.global_name OR OLD.avatar IS DISTINCT FROM NEW.avatar
     OR OLD.avatar_color IS DISTINCT FROM NEW.avatar_color OR OLD.flags IS DISTINCT FROM NEW.flags
     OR OLD.email IS DISTINCT FROM NEW.email OR OLD.email_verified IS DISTINCT FROM NEW.email_verified
     OR OLD.mfa_enabled IS DISTINCT FROM NEW.mfa_enabled)
  EXECUTE FUNCTION test_audit_write();
CREATE TRIGGER test_audit AFTER INSERT ON realtime_events
  FOR EACH ROW EXECUTE FUNCTION test_audit_event();`;

// Which events announce a write, by table and operation, and how an event names the row
// (w: the written row as jsonb; e: the event).
const COVERED = `
  CASE w.tbl || ':' || w.op
    WHEN 'messages:INSERT' THEN e.type = 'MESSAGE_CREATE' AND e.data->>'id' = w.row_data->>'id'
    WHEN 'messages:UPDATE' THEN e.type = 'MESSAGE_UPDATE' AND e.data->>'id' = w.row_data->>'id'
    WHEN 'messages:DELETE' THEN
         (e.type = 'MESSAGE_DELETE' AND e.data->>'id' = w.row_data->>'id')
      OR (e.type = 'MESSAGE_DELETE_BULK' AND e.data->'ids' ? (w.row_data->>'id'))
      OR (e.type = 'CHANNEL_DELETE' AND e.data->>'id' = w.row_data->>'channel_id')
    WHEN 'message_reactions:INSERT' THEN e.type = 'MESSAGE_REACTION_ADD'
      AND e.data->>'message_id' = w.row_data->>'message_id'
      AND e.data->>'user_id' = w.row_data->>'user_id' AND e.data->'emoji'->>'name' = w.row_data->>'emoji'
    -- A reaction also goes with its message (MESSAGE_DELETE & co. announce that; a channel or guild
    -- deleted names no message) and with its user (a bot deleted with its application leaves).
    WHEN 'message_reactions:DELETE' THEN
         (e.type = 'MESSAGE_REACTION_REMOVE' AND e.data->>'message_id' = w.row_data->>'message_id'
          AND e.data->>'user_id' = w.row_data->>'user_id' AND e.data->'emoji'->>'name' = w.row_data->>'emoji')
      OR (e.type = 'MESSAGE_REACTION_REMOVE_EMOJI' AND e.data->>'message_id' = w.row_data->>'message_id'
          AND e.data->'emoji'->>'name' = w.row_data->>'emoji')
      OR (e.type = 'MESSAGE_REACTION_REMOVE_ALL' AND e.data->>'message_id' = w.row_data->>'message_id')
      OR (e.type = 'MESSAGE_DELETE' AND e.data->>'id' = w.row_data->>'message_id')
      OR (e.type = 'MESSAGE_DELETE_BULK' AND e.data->'ids' ? (w.row_data->>'message_id'))
      OR e.type IN ('CHANNEL_DELETE', 'GUILD_DELETE')
      OR (e.type = 'GUILD_MEMBER_REMOVE' AND e.user_id::text = w.row_data->>'user_id')
    WHEN 'guild_members:INSERT' THEN e.type = 'GUILD_MEMBER_ADD'
      AND e.guild_id::text = w.row_data->>'guild_id' AND e.user_id::text = w.row_data->>'user_id'
    WHEN 'guild_members:UPDATE' THEN e.type = 'GUILD_MEMBER_UPDATE'
      AND e.guild_id::text = w.row_data->>'guild_id' AND e.user_id::text = w.row_data->>'user_id'
    WHEN 'guild_members:DELETE' THEN
         (e.type = 'GUILD_MEMBER_REMOVE' AND e.guild_id::text = w.row_data->>'guild_id'
          AND e.user_id::text = w.row_data->>'user_id')
      OR (e.type = 'GUILD_DELETE' AND e.guild_id::text = w.row_data->>'guild_id')
    WHEN 'guild_roles:INSERT' THEN e.type = 'GUILD_ROLE_CREATE' AND e.data->'role'->>'id' = w.row_data->>'id'
    WHEN 'guild_roles:UPDATE' THEN e.type = 'GUILD_ROLE_UPDATE' AND e.data->'role'->>'id' = w.row_data->>'id'
    WHEN 'guild_roles:DELETE' THEN
         (e.type = 'GUILD_ROLE_DELETE' AND e.data->>'role_id' = w.row_data->>'id')
      OR (e.type = 'GUILD_DELETE' AND e.guild_id::text = w.row_data->>'guild_id')
    WHEN 'guild_bans:INSERT' THEN e.type = 'GUILD_BAN_ADD'
      AND e.guild_id::text = w.row_data->>'guild_id' AND e.data->'user'->>'id' = w.row_data->>'user_id'
    WHEN 'guild_bans:DELETE' THEN
         (e.type = 'GUILD_BAN_REMOVE' AND e.guild_id::text = w.row_data->>'guild_id'
          AND e.data->'user'->>'id' = w.row_data->>'user_id')
      OR (e.type = 'GUILD_DELETE' AND e.guild_id::text = w.row_data->>'guild_id')
    WHEN 'channels:INSERT' THEN e.type = 'CHANNEL_CREATE' AND e.data->>'id' = w.row_data->>'id'
    WHEN 'channels:UPDATE' THEN e.type = 'CHANNEL_UPDATE' AND e.data->>'id' = w.row_data->>'id'
    WHEN 'channels:DELETE' THEN
         (e.type = 'CHANNEL_DELETE' AND e.data->>'id' = w.row_data->>'id')
      OR (e.type = 'GUILD_DELETE' AND e.guild_id::text = w.row_data->>'guild_id')
    WHEN 'guilds:INSERT' THEN e.type = 'GUILD_MEMBER_ADD' AND e.guild_id::text = w.row_data->>'id'
    WHEN 'guilds:UPDATE' THEN e.type = 'GUILD_UPDATE' AND e.guild_id::text = w.row_data->>'id'
    WHEN 'guilds:DELETE' THEN e.type = 'GUILD_DELETE' AND e.guild_id::text = w.row_data->>'id'
    WHEN 'users:UPDATE' THEN e.type = 'USER_UPDATE' AND e.user_id::text = w.row_data->>'id'
    ELSE false
  END`;

const UNANNOUNCED = `
  SELECT w.tbl, w.op, w.row_data->>'id' AS id, w.row_data->>'guild_id' AS guild_id,
         w.row_data->>'user_id' AS user_id, count(*) OVER () AS total
    FROM test_write_audit w
   WHERE NOT EXISTS (SELECT 1 FROM test_event_audit e WHERE e.txid = w.txid AND ${COVERED})
   LIMIT 20`;

/** Installs the triggers on a freshly migrated test database. */
export async function installWriteAudit(url: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(INSTALL);
  } finally {
    await c.end();
  }
}

/**
 * Throws, listing them, when writes of the run were not announced in their transaction. Also
 * reports how many writes and events were checked.
 */
export async function checkWritesAnnounced(
  url: string,
): Promise<{ writes: number; events: number }> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const missing = await c.query<{
      tbl: string;
      op: string;
      id: string | null;
      guild_id: string | null;
      user_id: string | null;
      total: string;
    }>(UNANNOUNCED);
    if (missing.rows.length > 0) {
      const lines = missing.rows.map(
        (r) =>
          `  ${r.op} ${r.tbl} ${JSON.stringify({ id: r.id, guild_id: r.guild_id, user_id: r.user_id })}`,
      );
      throw new Error(
        `${missing.rows[0].total} write(s) were committed without their realtime event ` +
          `(ARCHITECTURE.md §7; a fixture marks itself with parley.fixture):\n${lines.join('\n')}`,
      );
    }
    const counts = await c.query<{ writes: string; events: string }>(
      `SELECT (SELECT count(*) FROM test_write_audit) AS writes,
              (SELECT count(*) FROM test_event_audit) AS events`,
    );
    return { writes: Number(counts.rows[0].writes), events: Number(counts.rows[0].events) };
  } finally {
    await c.end();
  }
}
