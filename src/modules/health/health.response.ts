import { ApiProperty } from '@nestjs/swagger';

export class HealthResponse {
  @ApiProperty({ example: 'ok' })
  status: 'ok';
  /** Per-dependency state (`ok` or `down`). */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { database: 'ok' },
  })
  checks: Record<string, 'ok' | 'down'>;
}
