import { ApiProperty } from '@nestjs/swagger';

export class CreateAdminApiKeyResponse {
  @ApiProperty({ example: '1300000000000000000' })
  key_id: string;

  /** The key, shown this once: send it as `Authorization: Admin <key>`. */
  @ApiProperty({ example: 'adm_1300000000000000000_Yx3…' })
  key: string;

  name: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  expires_at: string | null;

  @ApiProperty({ type: [String], example: ['audit_log:view'] })
  acls: string[];
}

export class ListAdminApiKeyResponse {
  @ApiProperty({ example: '1300000000000000000' })
  key_id: string;

  name: string;

  @ApiProperty({ type: [String], example: ['audit_log:view'] })
  acls: string[];

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  /** When the key was last used (updated at most once a minute). */
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  last_used_at: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  expires_at: string | null;
}

export class DeleteApiKeyResponse {
  @ApiProperty({ example: true })
  success: true;
}
