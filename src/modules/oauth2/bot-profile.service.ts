import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { FieldError } from '../../common/errors/api-error';
import { ApiError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { AssetStorage } from '../../infra/storage/asset-storage.service';
import { parseImageDataUri, type ParsedImage } from '../../infra/storage/data-uri';
import { UserEntity } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ApplicationEntity } from './application.entity';
import { toBotProfile } from './application.mapper';
import type { BotProfileResponse } from './application.response';
import { ApplicationsService } from './applications.service';
import type { BotProfileUpdateDto } from './dto/bot-profile-update.dto';

/** BotFlags a profile update may set. */
export const BOT_FLAGS = { FRIENDLY_BOT: 16, FRIENDLY_BOT_MANUAL_APPROVAL: 32 } as const;
const ALLOWED_BOT_FLAGS = BOT_FLAGS.FRIENDLY_BOT | BOT_FLAGS.FRIENDLY_BOT_MANUAL_APPROVAL;

/** The bot's public profile (username#discriminator, bio, avatar, banner, bot flags). */
@Injectable()
export class BotProfileService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly apps: ApplicationsService,
    private readonly assets: AssetStorage,
    private readonly users: UsersService,
  ) {}

  async update(ownerId: string, id: string, dto: BotProfileUpdateDto): Promise<BotProfileResponse> {
    const errors: FieldError[] = [];
    // Both images are checked (magic bytes included) before anything is stored.
    const image = (field: 'avatar' | 'banner'): ParsedImage | null | undefined => {
      const v = dto[field];
      if (v === undefined || v === null) return v;
      try {
        return parseImageDataUri(v, field);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        errors.push(...((err.extra.errors as FieldError[] | undefined) ?? []));
        return undefined;
      }
    };
    const avatar = image('avatar');
    const banner = image('banner');
    if (dto.bot_flags != null && (dto.bot_flags & ~ALLOWED_BOT_FLAGS) !== 0) {
      errors.push({
        path: 'bot_flags',
        code: FieldErrorCode.BotFlagsInvalid,
        message: 'Only FRIENDLY_BOT (16) and FRIENDLY_BOT_MANUAL_APPROVAL (32) may be set.',
      });
    }
    if (errors.length) throw ApiError.form(errors);

    const app = await this.apps.getOwned(ownerId, id);
    // Files first: a hash in the row must always point at a file that exists.
    const avatarHash = avatar
      ? await this.assets.storeParsed('avatars', app.botUserId, avatar)
      : null;
    const bannerHash = banner
      ? await this.assets.storeParsed('banners', app.botUserId, banner)
      : null;

    return this.db.transaction(async (m) => {
      const users = m.getRepository(UserEntity);
      const bot = await users.findOneByOrFail({ id: app.botUserId });
      if (dto.username != null || dto.discriminator != null) {
        const username = dto.username ?? bot.username;
        const wanted = dto.discriminator ?? bot.discriminator;
        const taken = await users
          .createQueryBuilder('u')
          .where('lower(u.username) = lower(:username) AND u.discriminator = :d AND u.id <> :id', {
            username,
            d: wanted,
            id: bot.id,
          })
          .getExists();
        let discriminator = wanted;
        if (taken) {
          if (dto.discriminator != null) {
            throw ApiError.field('discriminator', FieldErrorCode.DiscriminatorTaken);
          }
          const free = await this.users.freeDiscriminator(username, m);
          if (!free) {
            throw ApiError.field('username', FieldErrorCode.UsernameTooManyUsers);
          }
          discriminator = free;
        }
        bot.username = username;
        bot.discriminator = discriminator;
      }
      if (dto.bio !== undefined) bot.bio = dto.bio;
      if (avatar !== undefined) bot.avatar = avatarHash;
      if (banner !== undefined) bot.banner = bannerHash;
      await this.users.update(m, bot.id, {
        username: bot.username,
        discriminator: bot.discriminator,
        bio: bot.bio,
        avatar: bot.avatar,
        banner: bot.banner,
      });
      if (dto.bot_flags != null) {
        await m
          .getRepository(ApplicationEntity)
          .update({ id: app.id }, { botFlags: dto.bot_flags });
      }
      return toBotProfile(bot);
    });
  }
}
