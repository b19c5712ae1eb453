import { ApiProperty } from '@nestjs/swagger';

export class GatewayResponse {
  /** The WebSocket URL to connect to (add `?v=10&encoding=json`, optionally `&compress=zlib-stream`). */
  @ApiProperty({ example: 'wss://parley.example.com/gateway' })
  url: string;
}

export class SessionStartLimitResponse {
  /** Identifies allowed per 24 hours. */
  @ApiProperty({ example: 1000 })
  total: number;
  /** Identifies left in the current window. */
  @ApiProperty({ example: 998 })
  remaining: number;
  /** Milliseconds until the window resets (0 when no identify was counted yet). */
  @ApiProperty({ example: 86_000_000 })
  reset_after: number;
  /** Identifies allowed per 5 seconds. */
  @ApiProperty({ example: 1 })
  max_concurrency: number;
}

export class GatewayBotResponse extends GatewayResponse {
  /** The recommended number of shards: one per 1,000 guilds the bot is in, at least one. */
  @ApiProperty({ example: 1 })
  shards: number;
  session_start_limit: SessionStartLimitResponse;
}
