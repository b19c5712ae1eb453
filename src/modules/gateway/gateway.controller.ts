import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentCaller, Public } from '../../common/auth/auth.decorator';
import type { BotCaller } from '../../common/auth/caller';
import { AppConfig } from '../../config/app.config';
import { GatewayBotResponse, GatewayResponse } from './gateway.response';
import { GatewayLimits } from './gateway-limits';

@ApiTags('Gateway')
@Controller('gateway')
export class GatewayController {
  constructor(
    private readonly config: AppConfig,
    private readonly limits: GatewayLimits,
  ) {}

  /** Where the real-time gateway is. */
  @Get()
  @Public()
  @ApiOperation({
    operationId: 'get_gateway',
    summary: 'Get the gateway URL',
    description:
      'The WebSocket URL of the real-time gateway (Discord Gateway v10). Connect with ' +
      '`?v=10&encoding=json`, optionally `&compress=zlib-stream`.',
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
      'The gateway URL, the recommended shard count (1) and the bot’s session start limit: ' +
      '1,000 identifies per 24 hours, one per 5 seconds.',
  })
  @ApiOkResponse({ type: GatewayBotResponse, description: 'The gateway URL and limits.' })
  async getBot(@CurrentCaller() caller: BotCaller): Promise<GatewayBotResponse> {
    return {
      url: this.config.gateway.url,
      shards: 1,
      session_start_limit: await this.limits.current(caller.applicationId),
    };
  }
}
