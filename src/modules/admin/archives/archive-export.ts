import type { DataSource } from 'typeorm';
import { decodeSnowflake } from '../../../common/snowflake/snowflake';
import type { ArchiveSubjectType } from './archive.entity';

/**
 * What goes into an archive: one JSON file per kind of data, and for a user the files they
 * uploaded (`attachments/<id>/<filename>`, listed in `attachments.json`). Every row is read with an explicit
 * column list and written through an explicit mapper, so no secret column (password hash,
 * token hashes, client secret or bot token hashes, encrypted webhook tokens, session id hashes)
 * can reach a file by accident. Messages are read in pages (bounded memory).
 */
export interface ArchiveFile {
  /** File name inside the zip. */
  name: string;
  /** Share of the build's progress (percent points) this file accounts for. */
  weight: number;
  /** The file's JSON, written in chunks; `progress(fraction)` reports how far it got (0–1). */
  write(out: JsonSink, progress: (fraction: number) => Promise<void>): Promise<void>;
}

/** Where an export writes its JSON text. */
export interface JsonSink {
  write(chunk: string): Promise<void>;
}

export const MESSAGE_PAGE = 1000;

const ts = (v: Date | string | null): string | null =>
  v === null ? null : (v instanceof Date ? v : new Date(v)).toISOString();

// --- rows as read (ids cast to text) and their exported shapes ------------------------------

interface UserRow {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  email: string | null;
  email_verified: boolean;
  phone: string | null;
  date_of_birth: string | null;
  flags: number;
  avatar: string | null;
  avatar_color: number | null;
  banner: string | null;
  bio: string | null;
  bot: boolean;
  system: boolean;
  mfa_enabled: boolean;
  authenticator_types: number[];
  created_at: Date;
}

export function exportUser(u: UserRow) {
  return {
    id: u.id,
    username: u.username,
    discriminator: u.discriminator,
    global_name: u.global_name,
    email: u.email,
    email_verified: u.email_verified,
    phone: u.phone,
    date_of_birth: u.date_of_birth,
    flags: u.flags,
    avatar: u.avatar,
    avatar_color: u.avatar_color,
    banner: u.banner,
    bio: u.bio,
    bot: u.bot,
    system: u.system,
    mfa_enabled: u.mfa_enabled,
    authenticator_types: u.authenticator_types,
    created_at: ts(u.created_at),
  };
}

interface SessionRow {
  id: string;
  created_at: Date;
  approx_last_used_at: Date | null;
  ip: string | null;
  client_info: unknown;
}

/** Session metadata only: never the token hash nor its `id_hash` form. */
export function exportSession(s: SessionRow) {
  return {
    id: s.id,
    created_at: ts(s.created_at),
    approx_last_used_at: ts(s.approx_last_used_at),
    ip: s.ip,
    client_info: s.client_info ?? null,
  };
}

interface MembershipRow {
  guild_id: string;
  guild_name: string;
  roles: string[];
  joined_at: Date;
}

export function exportMembership(m: MembershipRow) {
  return {
    guild_id: m.guild_id,
    guild_name: m.guild_name,
    roles: m.roles,
    joined_at: ts(m.joined_at),
  };
}

interface MessageRow {
  id: string;
  channel_id: string;
  guild_id: string;
  author_id: string | null;
  webhook_id: string | null;
  webhook_name: string | null;
  content: string;
  embeds: unknown[];
  created_at: Date;
}

export function exportMessage(m: MessageRow) {
  return {
    id: m.id,
    guild_id: m.guild_id,
    channel_id: m.channel_id,
    author_id: m.author_id,
    webhook_id: m.webhook_id,
    webhook_name: m.webhook_name,
    content: m.content,
    embeds: m.embeds,
    created_at: ts(m.created_at),
  };
}

interface ApplicationRow {
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  redirect_uris: string[];
  bot_public: boolean;
  bot_require_code_grant: boolean;
  flags: number;
  bot_flags: number;
  bot_user_id: string;
  created_at: Date;
}

/** An application without its client secret hash or bot token hash. */
export function exportApplication(a: ApplicationRow) {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    icon: a.icon,
    redirect_uris: a.redirect_uris,
    bot_public: a.bot_public,
    bot_require_code_grant: a.bot_require_code_grant,
    flags: a.flags,
    bot_flags: a.bot_flags,
    bot_user_id: a.bot_user_id,
    created_at: ts(a.created_at),
  };
}

interface AuthorizationRow {
  application_id: string;
  application_name: string;
  scopes: string[];
  authorized_at: Date;
}

export function exportAuthorization(a: AuthorizationRow) {
  return {
    application_id: a.application_id,
    application_name: a.application_name,
    scopes: a.scopes,
    authorized_at: ts(a.authorized_at),
  };
}

interface GuildRow {
  id: string;
  name: string;
  icon: string | null;
  banner: string | null;
  owner_id: string;
  created_at: Date;
}

export function exportGuild(g: GuildRow) {
  return {
    id: g.id,
    name: g.name,
    icon: g.icon,
    banner: g.banner,
    owner_id: g.owner_id,
    created_at: ts(g.created_at),
  };
}

interface ChannelRow {
  id: string;
  name: string;
  type: number;
  position: number;
}

export const exportChannel = (c: ChannelRow) => ({
  id: c.id,
  name: c.name,
  type: c.type,
  position: c.position,
});

interface RoleRow {
  id: string;
  name: string;
  permissions: string;
  position: number;
}

export const exportRole = (r: RoleRow) => ({
  id: r.id,
  name: r.name,
  permissions: r.permissions,
  position: r.position,
});

interface MemberRow {
  user_id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  bot: boolean;
  roles: string[];
  joined_at: Date;
}

export function exportMember(m: MemberRow) {
  return {
    user: {
      id: m.user_id,
      username: m.username,
      discriminator: m.discriminator,
      global_name: m.global_name,
      avatar: m.avatar,
      bot: m.bot,
    },
    roles: m.roles,
    joined_at: ts(m.joined_at),
  };
}

interface WebhookRow {
  id: string;
  type: number;
  channel_id: string;
  name: string;
  avatar: string | null;
  user_id: string | null;
  created_at: Date;
}

/** A webhook without its token (neither the hash nor the encrypted form). */
export function exportWebhook(w: WebhookRow) {
  return {
    id: w.id,
    type: w.type,
    channel_id: w.channel_id,
    name: w.name,
    avatar: w.avatar,
    creator_id: w.user_id,
    created_at: ts(w.created_at),
  };
}

interface AttachmentRow {
  id: string;
  channel_id: string;
  message_id: string | null;
  filename: string;
  content_type: string;
  size: string;
  created_at: Date;
}

/** A file's listing in `attachments.json`, with where its bytes are in the zip (`file`). */
export function exportAttachment(a: AttachmentRow) {
  return {
    id: a.id,
    channel_id: a.channel_id,
    message_id: a.message_id,
    filename: a.filename,
    content_type: a.content_type,
    size: Number(a.size),
    created_at: ts(a.created_at),
    file: attachmentEntryName(a.id, a.filename),
  };
}

/**
 * Where an attachment's bytes go in the zip. Stored filenames have no path (cleanFilename);
 * separators are replaced all the same, so no entry can land outside its folder when unzipped.
 */
export const attachmentEntryName = (id: string, filename: string): string =>
  `attachments/${id}/${filename.replace(/[\\/]/g, '_')}`;

// --- the files of each kind of archive ------------------------------------------------------

/** A file holding one JSON document built from one query. */
function documentFile<R, O>(
  name: string,
  weight: number,
  load: () => Promise<R[]>,
  map: (row: R) => O,
  single = false,
): ArchiveFile {
  return {
    name,
    weight,
    async write(out) {
      const rows = await load();
      const value = single ? (rows[0] ? map(rows[0]) : null) : rows.map(map);
      await out.write(JSON.stringify(value, null, 2));
    },
  };
}

/**
 * Messages as a JSON array, read `MESSAGE_PAGE` at a time in id order (keyset pagination: each
 * page continues the index scan where the previous one stopped). Progress is estimated from the
 * snowflake timestamps: `from` (the subject's creation) to now.
 */
function messagesFile(
  weight: number,
  since: Date,
  page: (afterId: string) => Promise<MessageRow[]>,
): ArchiveFile {
  return {
    name: 'messages.json',
    weight,
    async write(out, progress) {
      const start = since.getTime();
      const span = Math.max(1, Date.now() - start);
      await out.write('[');
      let after = '0';
      let first = true;
      for (;;) {
        const rows = await page(after);
        for (const row of rows) {
          await out.write(`${first ? '\n' : ',\n'}${JSON.stringify(exportMessage(row))}`);
          first = false;
        }
        if (rows.length < MESSAGE_PAGE) break;
        after = rows[rows.length - 1].id;
        await progress(
          Math.min(1, Math.max(0, (decodeSnowflake(after).timestamp.getTime() - start) / span)),
        );
      }
      await out.write(first ? ']' : '\n]');
    },
  };
}

const MESSAGE_COLUMNS = `m.id::text AS id, m.channel_id::text AS channel_id, c.guild_id::text AS guild_id,
  m.author_id::text AS author_id, m.webhook_id::text AS webhook_id, m.webhook_name, m.content,
  m.embeds, m.created_at`;

export const ATTACHMENT_PAGE = 500;

/**
 * The files a user uploaded that are theirs to export: stored, and attached to a message or
 * waiting for one (not those due for deletion: their message went, or the upload expired).
 */
const USER_ATTACHMENTS = `uploader_id = $1 AND stored
  AND (message_id IS NOT NULL OR expires_at > now())`;

/** A page of the user's attachments after `afterId`, in id order. */
function userAttachments(
  db: DataSource,
  userId: string,
  afterId: string,
): Promise<Array<AttachmentRow & { blob_key: string }>> {
  return db.query(
    `SELECT id::text AS id, channel_id::text AS channel_id, message_id::text AS message_id,
            filename, content_type, size::text AS size, created_at, blob_key
       FROM attachments WHERE ${USER_ATTACHMENTS} AND id > $2 ORDER BY id LIMIT ${ATTACHMENT_PAGE}`,
    [userId, afterId],
  );
}

/** `attachments.json`: the user's files as a JSON array, read a page at a time. */
function attachmentsFile(db: DataSource, userId: string): ArchiveFile {
  return {
    name: 'attachments.json',
    weight: 2,
    async write(out) {
      await out.write('[');
      let after = '0';
      let first = true;
      for (;;) {
        const rows = await userAttachments(db, userId, after);
        for (const row of rows) {
          await out.write(`${first ? '\n' : ',\n'}${JSON.stringify(exportAttachment(row))}`);
          first = false;
        }
        if (rows.length < ATTACHMENT_PAGE) break;
        after = rows[rows.length - 1].id;
      }
      await out.write(first ? ']' : '\n]');
    },
  };
}

/** A stored file the zip carries byte for byte. */
export interface ArchiveBlob {
  /** Entry name inside the zip. */
  name: string;
  /** Its key in blob storage. */
  key: string;
}

/** The stored files of an archive, listed a page at a time (streamed one by one by the builder). */
export interface ArchiveBlobs {
  /** Share of the build's progress (percent points) the files account for. */
  weight: number;
  /** How many there are (for progress). */
  count(): Promise<number>;
  pages(): AsyncGenerator<ArchiveBlob[]>;
}

function userBlobs(db: DataSource, userId: string): ArchiveBlobs {
  return {
    weight: 15,
    async count() {
      const [row] = await db.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM attachments WHERE ${USER_ATTACHMENTS}`,
        [userId],
      );
      return row?.n ?? 0;
    },
    async *pages() {
      let after = '0';
      for (;;) {
        const rows = await userAttachments(db, userId, after);
        yield rows.map((r) => ({ name: attachmentEntryName(r.id, r.filename), key: r.blob_key }));
        if (rows.length < ATTACHMENT_PAGE) return;
        after = rows[rows.length - 1].id;
      }
    },
  };
}

function userFiles(db: DataSource, userId: string, since: Date): ArchiveFile[] {
  return [
    documentFile(
      'profile.json',
      5,
      () =>
        db.query<UserRow[]>(
          `SELECT id::text, username, discriminator, global_name, email, email_verified, phone,
                  to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth, flags, avatar, avatar_color,
                  banner, bio, bot, system, mfa_enabled, authenticator_types, created_at
             FROM users WHERE id = $1`,
          [userId],
        ),
      exportUser,
      true,
    ),
    documentFile(
      'sessions.json',
      5,
      () =>
        db.query<SessionRow[]>(
          `SELECT id::text, created_at, approx_last_used_at, host(ip) AS ip, client_info
             FROM auth_sessions WHERE user_id = $1 ORDER BY id`,
          [userId],
        ),
      exportSession,
    ),
    documentFile(
      'guild_memberships.json',
      5,
      () =>
        db.query<MembershipRow[]>(
          `SELECT gm.guild_id::text AS guild_id, g.name AS guild_name, gm.roles::text[] AS roles,
                  gm.joined_at
             FROM guild_members gm JOIN guilds g ON g.id = gm.guild_id
            WHERE gm.user_id = $1 ORDER BY gm.guild_id`,
          [userId],
        ),
      exportMembership,
    ),
    messagesFile(70, since, (after) =>
      db.query<MessageRow[]>(
        `SELECT ${MESSAGE_COLUMNS}
           FROM messages m JOIN channels c ON c.id = m.channel_id
          WHERE m.author_id = $1 AND m.id > $2 ORDER BY m.id LIMIT ${MESSAGE_PAGE}`,
        [userId, after],
      ),
    ),
    documentFile(
      'applications.json',
      5,
      () =>
        db.query<ApplicationRow[]>(
          `SELECT id::text, name, description, icon, redirect_uris, bot_public,
                  bot_require_code_grant, flags, bot_flags, bot_user_id::text AS bot_user_id, created_at
             FROM oauth2_applications WHERE owner_id = $1 ORDER BY id`,
          [userId],
        ),
      exportApplication,
    ),
    documentFile(
      'oauth2_authorizations.json',
      5,
      () =>
        db.query<AuthorizationRow[]>(
          `SELECT a.application_id::text AS application_id, app.name AS application_name, a.scopes,
                  a.authorized_at
             FROM oauth2_authorizations a JOIN oauth2_applications app ON app.id = a.application_id
            WHERE a.user_id = $1 ORDER BY a.id`,
          [userId],
        ),
      exportAuthorization,
    ),
    attachmentsFile(db, userId),
  ];
}

function guildFiles(db: DataSource, guildId: string, since: Date): ArchiveFile[] {
  return [
    documentFile(
      'guild.json',
      4,
      () =>
        db.query<GuildRow[]>(
          `SELECT id::text, name, icon, banner, owner_id::text AS owner_id, created_at
             FROM guilds WHERE id = $1`,
          [guildId],
        ),
      exportGuild,
      true,
    ),
    documentFile(
      'channels.json',
      4,
      () =>
        db.query<ChannelRow[]>(
          `SELECT id::text, name, type, position FROM channels WHERE guild_id = $1 ORDER BY position, id`,
          [guildId],
        ),
      exportChannel,
    ),
    documentFile(
      'roles.json',
      4,
      () =>
        db.query<RoleRow[]>(
          `SELECT id::text, name, permissions::text AS permissions, position
             FROM guild_roles WHERE guild_id = $1 ORDER BY position, id`,
          [guildId],
        ),
      exportRole,
    ),
    documentFile(
      'members.json',
      8,
      () =>
        db.query<MemberRow[]>(
          `SELECT u.id::text AS user_id, u.username, u.discriminator, u.global_name, u.avatar, u.bot,
                  gm.roles::text[] AS roles, gm.joined_at
             FROM guild_members gm JOIN users u ON u.id = gm.user_id
            WHERE gm.guild_id = $1 ORDER BY gm.user_id`,
          [guildId],
        ),
      exportMember,
    ),
    messagesFile(72, since, (after) =>
      db.query<MessageRow[]>(
        `SELECT ${MESSAGE_COLUMNS}
           FROM messages m JOIN channels c ON c.id = m.channel_id
          WHERE c.guild_id = $1 AND m.id > $2 ORDER BY m.id LIMIT ${MESSAGE_PAGE}`,
        [guildId, after],
      ),
    ),
    documentFile(
      'webhooks.json',
      4,
      () =>
        db.query<WebhookRow[]>(
          `SELECT id::text, type, channel_id::text AS channel_id, name, avatar, user_id::text AS user_id,
                  created_at
             FROM webhooks WHERE guild_id = $1 ORDER BY id`,
          [guildId],
        ),
      exportWebhook,
    ),
  ];
}

/**
 * The stored files an archive of `subject` carries: a user's uploads (their listing is
 * `attachments.json`); none for a guild.
 */
export function archiveBlobs(
  db: DataSource,
  subjectType: ArchiveSubjectType,
  subjectId: string,
): ArchiveBlobs | null {
  return subjectType === 'user' ? userBlobs(db, subjectId) : null;
}

/** The files of an archive of `subject`, or null when the subject no longer exists. */
export async function archiveFiles(
  db: DataSource,
  subjectType: ArchiveSubjectType,
  subjectId: string,
): Promise<ArchiveFile[] | null> {
  const table = subjectType === 'user' ? 'users' : 'guilds';
  const [row] = await db.query<Array<{ created_at: Date }>>(
    `SELECT created_at FROM ${table} WHERE id = $1`,
    [subjectId],
  );
  if (!row) return null;
  return subjectType === 'user'
    ? userFiles(db, subjectId, row.created_at)
    : guildFiles(db, subjectId, row.created_at);
}
