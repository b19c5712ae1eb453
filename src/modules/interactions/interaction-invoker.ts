import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sha256 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import { ChannelEntity } from '../guilds/channel.entity';
import { GuildAccessService } from '../guilds/guild-access.service';
import { GuildMembersService } from '../guilds/guild-members.service';
import type { GuildMemberResponse } from '../guilds/guild.response';
import { MessageRenderer } from '../guilds/message-renderer';
import { MessagesService } from '../guilds/messages.service';
import { hasPermission, Permissions } from '../guilds/permissions';
import { ApplicationsService } from '../oauth2/applications.service';
import {
  COMMAND_CATALOG,
  type CommandCatalog,
  type InvocableCommand,
} from './command-catalog.port';
import { checkOptions, OptionType, type OptionReferences } from './command-options';
import { componentOf, modalValues, selectedReferences } from './components';
import type { InvokeInteractionDto } from './dto/invoke-interaction.dto';
import { InteractionDelivery } from './interaction-delivery';
import { InteractionEntity, type StoredMetadata } from './interaction.entity';
import { InteractionPayloads, type PayloadParts } from './interaction-payload';
import { INTERACTION_TOKEN_TTL_MS } from './interaction-credentials';
import { newInteractionToken } from './interaction-tokens';

/** Discord's USE_APPLICATION_COMMANDS (1 << 31). */
const USE_APPLICATION_COMMANDS = 1n << 31n;

/** Discord's interaction types. */
export const InteractionType = {
  PING: 1,
  APPLICATION_COMMAND: 2,
  MESSAGE_COMPONENT: 3,
  APPLICATION_COMMAND_AUTOCOMPLETE: 4,
  MODAL_SUBMIT: 5,
} as const;

/** What the type-specific part of an invocation adds to the interaction. */
interface Invocation {
  data: Record<string, unknown>;
  metadata: Omit<StoredMetadata, 'id' | 'type' | 'user' | 'authorizing_integration_owners'>;
  messageId?: string;
  message?: PayloadParts['message'];
}

/**
 * The user side of interactions (`POST /interactions`): checks that the user may invoke what
 * they invoke where they invoke it — VIEW_CHANNEL and USE_APPLICATION_COMMANDS in the channel,
 * the application's bot in the guild, the command usable in this guild with its
 * `default_member_permissions`, the options against its schema, a component on the
 * application's message, a modal the application showed this user — then records the
 * interaction (shared by every instance) and hands it to the application.
 */
@Injectable()
export class InteractionInvoker {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(COMMAND_CATALOG) private readonly catalog: CommandCatalog,
    private readonly apps: ApplicationsService,
    private readonly access: GuildAccessService,
    private readonly members: GuildMembersService,
    private readonly messages: MessagesService,
    private readonly renderer: MessageRenderer,
    private readonly payloads: InteractionPayloads,
    private readonly delivery: InteractionDelivery,
    private readonly snowflakes: SnowflakeService,
  ) {}

  async invoke(userId: string, dto: InvokeInteractionDto): Promise<void> {
    const app = await this.apps.findCached(dto.application_id);
    if (!app) throw new ApiError(ErrorCode.UnknownApplication);
    const access = await this.access.requireChannelPermission(
      userId,
      dto.channel_id,
      Permissions.VIEW_CHANNEL | USE_APPLICATION_COMMANDS,
    );
    if (access.guildId !== dto.guild_id) throw new ApiError(ErrorCode.UnknownChannel);
    const [bot, channel, members] = await Promise.all([
      this.access.access(app.botUserId, access.guildId),
      this.db.manager.findOneByOrFail(ChannelEntity, { id: dto.channel_id }),
      this.members.membersAmong(this.db.manager, access.guildId, [userId]),
    ]);
    // An application whose bot is not in the guild has nothing to answer with there.
    if (!bot) throw new ApiError(ErrorCode.UnknownApplication);
    const member = members.get(userId);
    if (!member) throw new ApiError(ErrorCode.UnknownGuild);
    const parts = {
      app,
      guildId: access.guildId,
      channelId: channel.id,
      userId,
      permissions: access.permissions,
      dto,
    };
    const invocation = await this.invocation(parts);

    const id = this.snowflakes.next();
    const token = newInteractionToken(id);
    const row = this.db.getRepository(InteractionEntity).create({
      id,
      applicationId: app.id,
      type: dto.type,
      guildId: access.guildId,
      channelId: channel.id,
      userId,
      tokenHash: sha256(token),
      nonce: dto.nonce === undefined ? null : String(dto.nonce),
      messageId: invocation.messageId ?? null,
      metadata: {
        id,
        type: dto.type,
        user: member.user,
        authorizing_integration_owners: { '0': access.guildId },
        ...invocation.metadata,
      },
      responseType: null,
      respondedAt: null,
      failedAt: null,
      originalMessageId: null,
    });
    await this.db.getRepository(InteractionEntity).insert(row);
    const payload = this.payloads.build({
      id,
      applicationId: app.id,
      type: dto.type,
      token,
      guildId: access.guildId,
      channel,
      member,
      memberPermissions: access.permissions,
      appPermissions: bot.permissions,
      data: invocation.data,
      message: invocation.message,
    });
    this.delivery.deliver(row, app, payload);
  }

  private async invocation(p: InvocationParts): Promise<Invocation> {
    switch (p.dto.type) {
      case 2:
      case 4:
        return this.command(p);
      case 3:
        return this.component(p);
      default:
        return this.modalSubmit(p);
    }
  }

  /** A command sent (2) or an option being typed (4). */
  private async command(p: InvocationParts): Promise<Invocation> {
    const commandId = parseSnowflake(p.dto.data.id);
    const command = commandId
      ? await this.catalog.findForGuild(p.app.id, commandId, p.guildId)
      : null;
    if (!command)
      throw ApiError.field('data.id', FieldErrorCode.BaseTypeInvalid, 'Unknown command.');
    checkDefaultPermissions(command, p.permissions);
    const autocomplete = p.dto.type === InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE;
    const data: Record<string, unknown> = {
      id: command.id,
      name: command.name,
      type: command.type,
    };
    if (command.guild_id) data.guild_id = command.guild_id;
    const metadata: Invocation['metadata'] = { name: command.name, command_type: command.type };
    let refs: OptionReferences;
    if (command.type === 1) {
      const checked = checkOptions(command.options ?? [], p.dto.data.options);
      if (autocomplete && checked.refs.focused !== 1) {
        throw ApiError.field(
          'data.options',
          FieldErrorCode.BaseTypeInvalid,
          'One option is focused.',
        );
      }
      data.options = checked.options;
      refs = checked.refs;
    } else {
      if (autocomplete) throw ApiError.field('type', FieldErrorCode.BaseTypeInvalid);
      const target = parseSnowflake(p.dto.data.target_id);
      if (!target) throw ApiError.field('data.target_id', FieldErrorCode.BaseTypeRequired);
      data.target_id = target;
      refs = emptyRefs();
      if (command.type === 2) refs.users.add(target);
      else metadata.target_message_id = target;
    }
    const resolved = await this.payloads.resolved(p.guildId, refs, p.permissions);
    if (command.type === 2) {
      const user = (resolved.users as Record<string, GuildMemberResponse['user']> | undefined)?.[
        data.target_id as string
      ];
      if (!user) throw ApiError.field('data.target_id', FieldErrorCode.BaseTypeInvalid);
      metadata.target_user = user;
    }
    if (command.type === 3) {
      const [message] = await this.renderer.render(this.db.manager, p.guildId, [
        await this.messages.findInChannel(this.db.manager, p.channelId, data.target_id as string),
      ]);
      resolved.messages = { [message.id]: message };
    }
    if (Object.keys(resolved).length > 0) data.resolved = resolved;
    return { data, metadata };
  }

  /** A component clicked or a select menu chosen on one of the application's messages. */
  private async component(p: InvocationParts): Promise<Invocation> {
    const messageId = p.dto.message_id;
    if (!messageId) throw ApiError.field('message_id', FieldErrorCode.BaseTypeRequired);
    const row = await this.messages.findInChannel(this.db.manager, p.channelId, messageId);
    if (row.applicationId !== p.app.id && row.authorId !== p.app.botUserId) {
      throw new ApiError(ErrorCode.UnknownMessage);
    }
    const [message] = await this.renderer.render(this.db.manager, p.guildId, [row]);
    const component = componentOf(message, p.dto.data);
    const data: Record<string, unknown> = {
      custom_id: component.custom_id,
      component_type: component.type,
    };
    if (component.values) {
      data.values = component.values;
      const refs = selectedReferences(component.type, component.values);
      if (refs) {
        const resolved = await this.payloads.resolved(p.guildId, refs, p.permissions);
        if (Object.keys(resolved).length > 0) data.resolved = resolved;
      }
    }
    return { data, metadata: { interacted_message_id: messageId }, messageId, message };
  }

  /** A modal the application showed this user, submitted. */
  private async modalSubmit(p: InvocationParts): Promise<Invocation> {
    const customId = p.dto.data.custom_id;
    if (typeof customId !== 'string') {
      throw ApiError.field('data.custom_id', FieldErrorCode.BaseTypeRequired);
    }
    const shown: Array<{ id: string; message_id: string | null }> = await this.db.query(
      `SELECT id::text AS id, message_id::text AS message_id FROM interactions
        WHERE user_id = $1 AND application_id = $2 AND response_type = 9
          AND metadata->>'modal_custom_id' = $3
          AND created_at > now() - $4 * interval '1 millisecond'
        ORDER BY created_at DESC LIMIT 1`,
      [p.userId, p.app.id, customId, INTERACTION_TOKEN_TTL_MS],
    );
    const modal = shown[0];
    if (!modal)
      throw ApiError.field('data.custom_id', FieldErrorCode.BaseTypeInvalid, 'Unknown modal.');
    const data = { custom_id: customId, components: modalValues(p.dto.data.components) };
    return { data, metadata: {}, messageId: modal.message_id ?? undefined };
  }
}

interface InvocationParts {
  app: { id: string; botUserId: string };
  guildId: string;
  channelId: string;
  userId: string;
  /** The invoking member's permissions in the guild. */
  permissions: bigint;
  dto: InvokeInteractionDto;
}

/** `default_member_permissions`: "0" admins only, other bits all needed; null everyone. */
function checkDefaultPermissions(command: InvocableCommand, permissions: bigint): void {
  if (command.default_member_permissions === null) return;
  const needed = BigInt(command.default_member_permissions);
  const ok =
    needed === 0n
      ? hasPermission(permissions, Permissions.ADMINISTRATOR)
      : hasPermission(permissions, needed);
  if (!ok) throw new ApiError(ErrorCode.MissingPermissions);
}

function emptyRefs(): OptionReferences {
  return {
    users: new Set(),
    roles: new Set(),
    channels: new Set(),
    mentionables: new Set(),
    focused: 0,
  };
}

export { OptionType };
