import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomInt } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { TaggedCache } from '../../common/cache/tagged-cache';
import { CHANGES_CHANNEL, DatabaseNotifications } from '../../database/notifications';
import { UserEntity } from './user.entity';
import { toGatewaySelf } from './user.mapper';
import { EventName } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';

export interface NewUser {
  username: string;
  globalName?: string | null;
  email?: string | null;
  /** An address proven by someone else (an SSO provider's verified e-mail). */
  emailVerified?: boolean;
  passwordHash?: string | null;
  dateOfBirth?: string | null;
  bot?: boolean;
}

/** A guild module's part when a user's public profile changes (GUILD_MEMBER_UPDATE). */
export type ProfileListener = (manager: EntityManager, user: UserEntity) => Promise<void>;

/** What everyone in their guilds sees of them (the user partial): a change is GUILD_MEMBER_UPDATE. */
const PUBLIC_FIELDS = [
  'username',
  'discriminator',
  'globalName',
  'avatar',
  'avatarColor',
  'flags',
] as const satisfies ReadonlyArray<keyof UserEntity>;

/** What the user's own gateway sessions see of them (READY's user): a change is USER_UPDATE. */
const SELF_FIELDS = [
  ...PUBLIC_FIELDS,
  'bot',
  'system',
  'email',
  'emailVerified',
  'mfaEnabled',
] as const satisfies ReadonlyArray<keyof UserEntity>;

/**
 * User accounts, the one owner of the `users` table: lookups other modules use, creation with a
 * free discriminator, and every change — each announced in the transaction that makes it
 * (USER_UPDATE to the user's own sessions; GUILD_MEMBER_UPDATE to their guilds, through the
 * guilds module's ProfileListener, when what others see changed).
 */
@Injectable()
export class UsersService implements OnModuleInit {
  /**
   * Users as last committed, for read-only hot paths (`GET /users/@me`): every change to a user
   * row is announced by a trigger (`u:<id>`) and drops the entry on every instance.
   */
  private readonly profiles = new TaggedCache<Readonly<UserEntity>>(50_000, 5 * 60_000);

  private readonly profileListeners: ProfileListener[] = [];

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly snowflakes: SnowflakeService,
    private readonly notifications: DatabaseNotifications,
    private readonly events: RealtimeEvents,
  ) {}

  /** Registers the guilds module's part of a profile change (call from onModuleInit). */
  onProfileChange(listener: ProfileListener): void {
    this.profileListeners.push(listener);
  }

  /**
   * Changes a user in `manager`'s transaction (which must be open) and announces what their
   * sessions and guilds see of it. Returns the user as changed. The caller drops this
   * process's cached copy (`forget`) once it committed.
   */
  async update(
    manager: EntityManager,
    id: string,
    patch: Partial<UserEntity>,
  ): Promise<UserEntity> {
    const before = await manager.findOne(UserEntity, {
      where: { id },
      lock: { mode: 'pessimistic_write' },
    });
    if (!before) throw new ApiError(ErrorCode.UnknownUser);
    if (Object.keys(patch).length > 0) await manager.update(UserEntity, { id }, patch);
    const after = manager.create(UserEntity, { ...before, ...patch });
    await this.announce(manager, before, after);
    return after;
  }

  /** A second factor was enrolled: `authenticator_types` gains it, MFA is on. */
  async addAuthenticator(manager: EntityManager, id: string, type: number): Promise<void> {
    await this.changeAuthenticators(
      manager,
      id,
      `UPDATE users SET
         authenticator_types = ARRAY(SELECT DISTINCT t FROM unnest(array_append(authenticator_types, $2::smallint)) t ORDER BY t),
         mfa_enabled = true
       WHERE id = $1`,
      [id, type],
    );
  }

  /** Second factors were removed: MFA stays on only while another is enrolled. */
  async removeAuthenticators(manager: EntityManager, id: string, types: number[]): Promise<void> {
    await this.changeAuthenticators(
      manager,
      id,
      `UPDATE users SET
         authenticator_types = ARRAY(SELECT t FROM unnest(authenticator_types) t WHERE t <> ALL($2::smallint[]) ORDER BY t),
         mfa_enabled = EXISTS(SELECT 1 FROM unnest(authenticator_types) t WHERE t <> ALL($2::smallint[]))
       WHERE id = $1`,
      [id, types],
    );
  }

  /**
   * Deletes a user (a bot whose application is deleted). Whatever they were part of that others
   * see (memberships) must have been removed through its owner first.
   */
  async remove(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(UserEntity, { id });
  }

  private async changeAuthenticators(
    manager: EntityManager,
    id: string,
    sql: string,
    params: unknown[],
  ): Promise<void> {
    const before = await manager.findOne(UserEntity, {
      where: { id },
      lock: { mode: 'pessimistic_write' },
    });
    if (!before) throw new ApiError(ErrorCode.UnknownUser);
    await manager.query(sql, params);
    const after = await manager.findOneByOrFail(UserEntity, { id });
    await this.announce(manager, before, after);
  }

  private async announce(
    manager: EntityManager,
    before: UserEntity,
    after: UserEntity,
  ): Promise<void> {
    const changed = (fields: ReadonlyArray<keyof UserEntity>) =>
      fields.some((f) => before[f] !== after[f]);
    if (!changed(SELF_FIELDS)) return;
    await this.events.publish(manager, [
      { t: EventName.UserUpdate, userId: after.id, d: toGatewaySelf(after) },
    ]);
    if (changed(PUBLIC_FIELDS)) {
      for (const listener of this.profileListeners) await listener(manager, after);
    }
  }

  onModuleInit(): void {
    this.notifications.invalidateOnChange(this.profiles, 'u:');
  }

  /** The user, read-only, from memory when possible (never mutate the result). */
  async getProfile(id: string): Promise<Readonly<UserEntity>> {
    const hit = this.profiles.get(id);
    if (hit) return hit;
    const generation = this.profiles.currentGeneration;
    const user = await this.getById(id);
    this.profiles.set(id, Object.freeze(user), [`u:${id}`], generation);
    return user;
  }

  /**
   * Drops at once, on this process, every cached entry tagged with the user: the profile above
   * and the user's resolved credentials. Call it after the change commits: the users trigger's
   * notification reaches every instance (this one too) a moment later, and this spares the
   * caller's next request that wait. Before the commit it achieves nothing (a read in between
   * caches the old row again).
   */
  forget(id: string): void {
    this.notifications.publishLocal(CHANGES_CHANNEL, `u:${id}`);
  }

  repo(manager?: EntityManager): Repository<UserEntity> {
    return manager ? manager.getRepository(UserEntity) : this.users;
  }

  findById(id: string, manager?: EntityManager): Promise<UserEntity | null> {
    return this.repo(manager).findOneBy({ id });
  }

  async getById(id: string, manager?: EntityManager): Promise<UserEntity> {
    const user = await this.findById(id, manager);
    if (!user) throw new ApiError(ErrorCode.UnknownUser);
    return user;
  }

  findByEmail(email: string, manager?: EntityManager): Promise<UserEntity | null> {
    return this.repo(manager)
      .createQueryBuilder('u')
      .where('lower(u.email) = lower(:email)', { email })
      .getOne();
  }

  async emailTaken(email: string, manager?: EntityManager): Promise<boolean> {
    return (await this.findByEmail(email, manager)) !== null;
  }

  /** Discriminators already used with this username (case-insensitive). */
  private async usedDiscriminators(
    username: string,
    manager?: EntityManager,
  ): Promise<Set<string>> {
    const rows = await this.repo(manager)
      .createQueryBuilder('u')
      .select('u.discriminator', 'd')
      .where('lower(u.username) = lower(:username)', { username })
      .getRawMany<{ d: string }>();
    return new Set(rows.map((r) => r.d));
  }

  /** Whether any discriminator is still free for this username. */
  async usernameAvailable(username: string, manager?: EntityManager): Promise<boolean> {
    return (await this.usedDiscriminators(username, manager)).size < 9999;
  }

  /** A random free discriminator, or null when all 9999 are taken. */
  async freeDiscriminator(username: string, manager?: EntityManager): Promise<string | null> {
    const used = await this.usedDiscriminators(username, manager);
    if (used.size >= 9999) return null;
    for (;;) {
      const d = String(randomInt(1, 10000)).padStart(4, '0');
      if (!used.has(d)) return d;
    }
  }

  /**
   * The discriminator a user gets when renaming to `username`: the current one when it is free
   * with the new name, otherwise a random free one (null when all 9999 are taken).
   */
  async discriminatorForRename(
    user: UserEntity,
    username: string,
    manager?: EntityManager,
  ): Promise<string | null> {
    if (username.toLowerCase() === user.username.toLowerCase()) return user.discriminator;
    const used = await this.usedDiscriminators(username, manager);
    if (!used.has(user.discriminator)) return user.discriminator;
    return this.freeDiscriminator(username, manager);
  }

  /**
   * Creates a user with a free discriminator. A concurrent insert of the same pair hits the
   * unique index; we retry with another discriminator.
   */
  async create(input: NewUser, manager: EntityManager): Promise<UserEntity> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const discriminator = await this.freeDiscriminator(input.username, manager);
      if (!discriminator) {
        throw ApiError.field('username', FieldErrorCode.UsernameTooManyUsers);
      }
      const user = this.repo(manager).create({
        id: this.snowflakes.next(),
        username: input.username,
        discriminator,
        globalName: input.globalName ?? null,
        email: input.email ?? null,
        emailVerified: input.emailVerified ?? false,
        passwordHash: input.passwordHash ?? null,
        dateOfBirth: input.dateOfBirth ?? null,
        bot: input.bot ?? false,
        createdAt: new Date(),
      });
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(UserEntity)
        .values(user)
        .orIgnore()
        .returning('id')
        .execute();
      if ((inserted.raw as unknown[]).length > 0) return user;
      if (input.email && (await this.emailTaken(input.email, manager))) {
        throw ApiError.field('email', FieldErrorCode.EmailAlreadyRegistered);
      }
    }
    throw new ApiError(ErrorCode.Conflict, 'Could not allocate a discriminator, please retry.');
  }
}
