import { Controller, Get } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller, Public } from '../../common/auth/auth.decorator';
import type { BotCaller } from '../../common/auth/caller';
import { AppConfig } from '../../config/app.config';
import { GatewayBotResponse, GatewayResponse } from './gateway.response';
import { GatewayLimits } from './gateway-limits';
import { GuildMembersService } from '../guilds/guild-members.service';

/** Discord recommends a shard per 1,000 guilds (a session may hold up to 2,500). */
const GUILDS_PER_SHARD = 1000;

@ApiTags('Gateway')
@Controller('gateway')
export class GatewayController {
  constructor(
    private readonly config: AppConfig,
    private readonly limits: GatewayLimits,
    private readonly members: GuildMembersService,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /** Where the real-time gateway is. */
  @Get()
  @Public()
  @ApiOperation({
    operationId: 'get_gateway',
    summary: 'Get the gateway URL',
    description:
      'The WebSocket URL of the real-time gateway (Discord Gateway v10). Connect with ' +
      '`?v=10&encoding=json`, optionally `&compress=zlib-stream` or `&compress=zstd-stream` ' +
      '(where the runtime has zstd: Node 22.15+; any other `compress` value gets uncompressed ' +
      'frames; an `encoding` other than `json` is refused with 400).',
  })
  @ApiOkResponse({ type: GatewayResponse, description: 'The gateway URL.' })
  get(): GatewayResponse {
    return { url: this.config.gateway.url };
  }

  /** The gateway URL with the bot's session start limits. */
  @Get('bot')
  @Auth({ kind: 'bot' })
  @ApiOperation({
    operationId: 'get_gateway_bot',
    summary: 'Get the gateway URL for a bot',
    description:
      'The gateway URL, the recommended shard count (one per 1,000 guilds the bot is in, at ' +
      'least one) and the bot’s session start limit: 1,000 identifies per 24 hours, one per 5 ' +
      'seconds.',
  })
  @ApiOkResponse({ type: GatewayBotResponse, description: 'The gateway URL and limits.' })
  async getBot(@CurrentCaller() caller: BotCaller): Promise<GatewayBotResponse> {
    const [guilds, limit] = await Promise.all([
      this.members.countGuildsOf(this.db.manager, caller.userId),
      this.limits.current(caller.applicationId),
    ]);
    return {
      url: this.config.gateway.url,
      shards: Math.max(1, Math.ceil(guilds / GUILDS_PER_SHARD)),
      session_start_limit: limit,
    };
  }
}
