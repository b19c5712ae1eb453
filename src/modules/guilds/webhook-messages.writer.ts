import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isDatabaseUnavailable } from '../../common/errors/database-unavailable';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { GroupCommit } from '../../database/group-commit';
import { PreparedStatement } from '../../database/prepared';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { Metrics } from '../../infra/metrics/metrics';
import { AttachmentLinks } from './attachments/attachment-links';
import type { StoredAttachment } from './attachments/stored-attachment';
import type { MessageDraft } from './embeds/embed';
import { toMessageFromParts, webhookAuthor, webhookAuthorSql } from './guild.mapper';
import type { MessageResponse } from './guild.response';

/**
 * A webhook message to insert. The INSERT re-checks the webhook as it is now: its token
 * (`tokenHash`) and, on signed routes, the sealed signing secret the delivery was checked against
 * (`secretCheck`; undefined on routes that take no signature). `deliveryId` (a repository host's
 * delivery id) is recorded by the same statement: a redelivery within a day posts nothing.
 */
export interface WebhookPost {
  webhookId: string;
  tokenHash: Buffer;
  secretCheck: { sealed: string | null } | undefined;
  draft: MessageDraft;
  deliveryId?: string;
  /** Files it carries (stored already, in the webhook's channel): what the message shows. */
  files?: { channelId: string; attachments: StoredAttachment[] };
}

/** What a post came to: the message, nothing (the webhook is gone or changed), or a redelivery. */
export type WebhookPostOutcome =
  { kind: 'posted'; message: MessageResponse } | { kind: 'refused' } | { kind: 'duplicate' };

interface Pending extends WebhookPost {
  /** Chosen before the first attempt (a new one only if another process minted it too). */
  id: string;
  createdAt: Date;
  message: MessageResponse;
}

interface Row {
  id: string;
  channel_id: string;
  guild_id: string;
  author_name: string | null;
  author_avatar: string | null;
  inserted: boolean;
  /** A delivery id recorded by this statement (false: seen before, or none given). */
  recorded: boolean;
}

// The message's JSON up to what only the webhook's row knows (channel, guild, author), which
// the statement puts in front: `body` is the rest of the object (from its first field on).
const EVENT_DATA = `'{"guild_id":"' || ok.guild_id || '","channel_id":"' ||
  ok.channel_id || '","author":' || ${webhookAuthorSql('ok.webhook_id', 'ok.author_name', 'ok.author_avatar')}::text || ',' || ok.body`;

// One statement posts a batch (group commit), atomically:
// - each webhook is re-checked as it is now: deleted (on any instance), its token changed, or on
//   signed routes its signing secret changed since the delivery was checked → nothing for that
//   row; channel, name and avatar come from its row, so a move or rename elsewhere is honoured;
// - a delivery id is recorded with its message, or the message is not posted (a redelivery);
// - the message and its MESSAGE_CREATE (the outbox, ARCHITECTURE.md §7) are written together.
// The retry after a lost commit answer runs it with ON CONFLICT DO NOTHING: the ids were chosen
// before the first attempt, so what that attempt committed is not inserted twice.
// Posts with files (webhook-file-intake.ts) also hand their files to the message, in the same
// statement: the rows the upload left unattached get its id.
const FILES_ATTACHED = `
  attached AS (
    UPDATE attachments a
       SET message_id = ok.id, expires_at = NULL, filename = f.filename, description = f.description
      FROM ok JOIN inserted i ON i.id = ok.id,
           jsonb_to_recordset(ok.attachments) AS f(id bigint, filename text, description text)
     WHERE a.id = f.id AND a.message_id IS NULL
  ),`;

const insertSql = (onConflict: string, files = false) => `
  WITH v AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::varchar[], $4::text[], $5::varchar[],
                         $6::jsonb[], $7::bytea[], $8::boolean[], $9::text[], $10::varchar[],
                         $11::timestamptz[], $12::text[]${files ? ', $13::jsonb[]' : ''})
      AS v(id, webhook_id, name, avatar, content, embeds, token_hash, check_secret, secret,
           delivery_id, created_at, body${files ? ', attachments' : ''})
  ), ok AS (
    SELECT v.*, w.channel_id, c.guild_id,
           COALESCE(v.name, w.name) AS author_name, COALESCE(v.avatar, w.avatar) AS author_avatar
      FROM v
      JOIN webhooks w ON w.id = v.webhook_id AND w.token_hash = v.token_hash
       AND (NOT v.check_secret OR w.signing_secret_encrypted IS NOT DISTINCT FROM v.secret)
      JOIN channels c ON c.id = w.channel_id
  ), recorded AS (
    INSERT INTO webhook_deliveries (webhook_id, delivery_id)
    SELECT webhook_id, delivery_id FROM ok WHERE delivery_id IS NOT NULL
    ON CONFLICT (webhook_id, delivery_id) DO UPDATE SET created_at = now()
     WHERE webhook_deliveries.created_at < now() - interval '1 day'
    RETURNING webhook_id, delivery_id
  ), inserted AS (
    INSERT INTO messages (id, channel_id, author_id, webhook_id, webhook_name, webhook_avatar,
                          content, embeds, created_at${files ? ', attachments' : ''})
    SELECT ok.id, ok.channel_id, NULL, ok.webhook_id, ok.author_name, ok.author_avatar,
           ok.content, ok.embeds, ok.created_at${files ? ', ok.attachments' : ''}
      FROM ok
     WHERE ok.delivery_id IS NULL
        OR EXISTS (SELECT 1 FROM recorded r
                    WHERE r.webhook_id = ok.webhook_id AND r.delivery_id = ok.delivery_id)
    ${onConflict}
    RETURNING id
  ),${files ? FILES_ATTACHED : ''} announced AS (
    INSERT INTO realtime_events (type, guild_id, channel_id, data)
    SELECT 'MESSAGE_CREATE', ok.guild_id, ok.channel_id, ${EVENT_DATA}
      FROM ok JOIN inserted i ON i.id = ok.id
     ORDER BY ok.id
  )
  SELECT ok.id::text AS id, ok.channel_id::text AS channel_id, ok.guild_id::text AS guild_id,
         ok.author_name, ok.author_avatar, i.id IS NOT NULL AS inserted,
         EXISTS (SELECT 1 FROM recorded r
                  WHERE r.webhook_id = ok.webhook_id AND r.delivery_id = ok.delivery_id) AS recorded
    FROM ok LEFT JOIN inserted i ON i.id = ok.id`;

const INSERT_WEBHOOK_MESSAGES = new PreparedStatement<Row>(
  'parley_insert_webhook_messages_v4',
  insertSql(''),
);
const RETRY_WEBHOOK_MESSAGES = new PreparedStatement<Row>(
  'parley_retry_webhook_messages_v4',
  insertSql('ON CONFLICT (id) DO NOTHING'),
);
const INSERT_WEBHOOK_FILE_MESSAGES = new PreparedStatement<Row>(
  'parley_insert_webhook_file_messages_v1',
  insertSql('', true),
);
const RETRY_WEBHOOK_FILE_MESSAGES = new PreparedStatement<Row>(
  'parley_retry_webhook_file_messages_v1',
  insertSql('ON CONFLICT (id) DO NOTHING', true),
);

// Which of a retried batch's messages the first attempt stored: same id, same webhook, same time.
const STORED_BY_FIRST_ATTEMPT = `
  SELECT m.id::text AS id
    FROM messages m
    JOIN unnest($1::bigint[], $2::bigint[], $3::timestamptz[]) AS v(id, webhook_id, created_at)
      ON m.id = v.id AND m.webhook_id = v.webhook_id AND m.created_at = v.created_at`;

/** A retry after a lost commit answer waits this long for the database to settle. */
const RETRY_DELAY_MS = 100;

/**
 * Webhook messages (every execute route): concurrent posts share one statement and one commit
 * (GroupCommit, ARCHITECTURE.md §7), which writes each message with its MESSAGE_CREATE. Part of
 * MessagesService's ownership of messages; kept apart because it is the ingest hot path.
 */
@Injectable()
export class WebhookMessagesWriter {
  private readonly writer = new GroupCommit<Pending, WebhookPostOutcome>(
    (batch) => {
      this.metrics.groupCommitBatch('webhook_messages', batch.length);
      return this.write(batch);
    },
    { maxBatch: 500, maxInFlight: 4 },
  );

  /** Posts with files: their own statement, so the ingest path of the others stays as it is. */
  private readonly fileWriter = new GroupCommit<Pending, WebhookPostOutcome>(
    (batch) => {
      this.metrics.groupCommitBatch('webhook_file_messages', batch.length);
      return this.write(batch);
    },
    { maxBatch: 50, maxInFlight: 2 },
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly snowflakes: SnowflakeService,
    private readonly events: RealtimeEvents,
    private readonly metrics: Metrics,
    private readonly links: AttachmentLinks,
  ) {}

  post(post: WebhookPost): Promise<WebhookPostOutcome> {
    const id = this.snowflakes.next();
    const createdAt = new Date();
    // What the message will look like; channel and author come from the webhook's row.
    const message = toMessageFromParts({
      id,
      channelId: '',
      author: webhookAuthor(post.webhookId, null, null),
      webhookId: post.webhookId,
      content: post.draft.content ?? '',
      embeds: post.draft.embeds,
      mentions: [],
      mentionEveryone: false,
      createdAt,
      editedAt: null,
      attachments: post.files
        ? this.links.presentAll(post.files.channelId, post.files.attachments)
        : undefined,
    });
    const writer = post.files ? this.fileWriter : this.writer;
    return writer.submit({ ...post, id, createdAt, message });
  }

  /**
   * Writes a batch. When the answer to its commit is lost (the connection dropped), whether it
   * committed is unknown: it is run again with the same ids, inserting only what did not commit,
   * and what did is recognised as this batch's own. When an id is taken (another process minting
   * with the same WORKER_ID), nothing was written: the batch gets new ids. A batch the database
   * refuses otherwise is retried row by row, so one bad row fails alone.
   */
  private async write(batch: Pending[]): Promise<Array<WebhookPostOutcome | Error>> {
    try {
      return await this.run(batch, false);
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
        return this.run(batch, true);
      }
      if (isIdTaken(err)) {
        for (const m of batch) m.id = m.message.id = this.snowflakes.next();
        return this.write(batch);
      }
      if (batch.length === 1) throw err;
      return Promise.all(
        batch.map((m) =>
          this.run([m], false).then(
            (r) => r[0],
            (e: Error) => e,
          ),
        ),
      );
    }
  }

  private async run(batch: Pending[], retry: boolean): Promise<Array<WebhookPostOutcome | Error>> {
    const files = batch[0].files !== undefined;
    const statement = files
      ? retry
        ? RETRY_WEBHOOK_FILE_MESSAGES
        : INSERT_WEBHOOK_FILE_MESSAGES
      : retry
        ? RETRY_WEBHOOK_MESSAGES
        : INSERT_WEBHOOK_MESSAGES;
    const rows = await statement.run(this.dataSource, [
      batch.map((m) => m.id),
      batch.map((m) => m.webhookId),
      batch.map((m) => m.draft.username ?? null),
      batch.map((m) => m.draft.avatar_url ?? null),
      batch.map((m) => m.draft.content ?? ''),
      batch.map((m) => JSON.stringify(m.draft.embeds)),
      batch.map((m) => m.tokenHash),
      batch.map((m) => m.secretCheck !== undefined),
      batch.map((m) => m.secretCheck?.sealed ?? null),
      batch.map((m) => m.deliveryId ?? null),
      batch.map((m) => m.createdAt),
      batch.map((m) => bodyOf(m.message)),
      ...(files ? [batch.map((m) => JSON.stringify(m.files?.attachments ?? []))] : []),
    ]);
    if (rows.some((r) => r.inserted)) this.events.written();
    const byId = new Map(rows.map((r) => [r.id, r]));
    // On a retry, what was not inserted may be what the first attempt stored.
    const ours = retry ? await this.storedBefore(batch, rows) : new Set<string>();
    return batch.map((m): WebhookPostOutcome | Error => {
      const row = byId.get(m.id);
      if (!row) return { kind: 'refused' };
      if (!row.inserted && !ours.has(m.id)) {
        if (m.deliveryId && !row.recorded) return { kind: 'duplicate' };
        return new Error(`webhook message ${m.id} was neither stored nor refused`);
      }
      m.message.channel_id = row.channel_id;
      m.message.author = webhookAuthor(m.webhookId, row.author_name, row.author_avatar);
      return { kind: 'posted', message: m.message };
    });
  }

  private async storedBefore(batch: Pending[], rows: Row[]): Promise<Set<string>> {
    const missing = new Set(rows.filter((r) => !r.inserted).map((r) => r.id));
    const candidates = batch.filter((m) => missing.has(m.id));
    if (candidates.length === 0) return new Set();
    const found = await this.dataSource.query<Array<{ id: string }>>(STORED_BY_FIRST_ATTEMPT, [
      candidates.map((m) => m.id),
      candidates.map((m) => m.webhookId),
      candidates.map((m) => m.createdAt),
    ]);
    return new Set(found.map((r) => r.id));
  }
}

/** A unique violation of the messages' primary key: the id was minted elsewhere too. */
function isIdTaken(err: unknown): boolean {
  const e = (err as { driverError?: { code?: string; constraint?: string } }).driverError;
  return e?.code === '23505' && e.constraint === 'messages_pkey';
}

/**
 * The message's JSON from its first field on, without channel and author (the statement puts
 * those in front): the message as REST returns it.
 */
function bodyOf(message: MessageResponse): string {
  const { channel_id: _channel, author: _author, ...rest } = message;
  return JSON.stringify(rest).slice(1);
}
