import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GuildAccessService, type GuildAccess } from '../guilds/guild-access.service';
import { hasPermission, Permissions } from '../guilds/permissions';
import { ApplicationsService } from '../oauth2/applications.service';
import { ApplicationCommandEntity } from './application-command.entity';
import { toApplicationCommand } from './application-command.mapper';
import type {
  CommandIndexApplicationResponse,
  CommandIndexResponse,
} from './command-index.response';

/** Interaction context GUILD: a command whose `contexts` leave it out is not usable in a guild. */
const GUILD_CONTEXT = 0;

/**
 * Discord's `GET /guilds/{guild_id}/application-command-index`: what a member may invoke in a
 * guild — the global and guild commands of the applications whose bots are members, that the
 * member's permissions allow (USE_APPLICATION_COMMANDS, and the command's
 * `default_member_permissions`; the owner and ADMINISTRATOR: all).
 */
@Injectable()
export class CommandIndexService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly access: GuildAccessService,
    private readonly apps: ApplicationsService,
  ) {}

  async index(userId: string, guildId: string): Promise<CommandIndexResponse> {
    const member = await this.access.requirePermission(userId, guildId, 0n);
    const rows = (await this.commandsOfBotsIn(guildId)).filter((c) => usable(member, c));
    const applications: CommandIndexApplicationResponse[] = [];
    for (const id of new Set(rows.map((c) => c.applicationId))) {
      const app = await this.apps.findCached(id);
      if (!app) continue;
      applications.push({
        id: app.id,
        name: app.name,
        description: app.description,
        icon: app.icon,
        bot_id: app.botUserId,
      });
    }
    const version = rows.reduce(
      (max, c) => (BigInt(c.version) > max ? BigInt(c.version) : max),
      0n,
    );
    return {
      applications,
      application_commands: rows.map(toApplicationCommand),
      version: version.toString(),
    };
  }

  /** The global and guild commands of every application whose bot is in the guild. */
  private commandsOfBotsIn(guildId: string): Promise<ApplicationCommandEntity[]> {
    return this.db
      .getRepository(ApplicationCommandEntity)
      .createQueryBuilder('c')
      .innerJoin('oauth2_applications', 'a', 'a.id = c.application_id')
      .innerJoin('guild_members', 'm', 'm.guild_id = :guildId AND m.user_id = a.bot_user_id', {
        guildId,
      })
      .where('(c.guild_id IS NULL OR c.guild_id = :guildId)', { guildId })
      .orderBy('c.application_id', 'ASC')
      .addOrderBy('c.id', 'ASC')
      .getMany();
  }
}

/** Whether the member may use the command in the guild (Discord's rule, at guild level). */
function usable(member: GuildAccess, c: ApplicationCommandEntity): boolean {
  if (c.contexts !== null && !c.contexts.includes(GUILD_CONTEXT)) return false;
  if (!hasPermission(member.permissions, Permissions.USE_APPLICATION_COMMANDS)) return false;
  if (c.defaultMemberPermissions === null) return true;
  const required = BigInt(c.defaultMemberPermissions);
  // "0": administrators only (they hold every bit, so the general rule covers them).
  if (required === 0n) return hasPermission(member.permissions, Permissions.ADMINISTRATOR);
  return hasPermission(member.permissions, required);
}
