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

export interface NewUser {
  username: string;
  globalName?: string | null;
  email?: string | null;
  passwordHash?: string | null;
  dateOfBirth?: string | null;
  bot?: boolean;
}

/** User accounts: lookups other modules use, and creation with a free discriminator. */
@Injectable()
export class UsersService implements OnModuleInit {
  /**
   * Users as last committed, for read-only hot paths (`GET /users/@me`): every change to a user
   * row is announced by a trigger (`u:<id>`) and drops the entry on every instance.
   */
  private readonly profiles = new TaggedCache<Readonly<UserEntity>>(50_000, 5 * 60_000);

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly snowflakes: SnowflakeService,
    private readonly notifications: DatabaseNotifications,
  ) {}

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
