import { Controller, Get, Param, Query, StreamableFile } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { Public } from '../../../common/auth/auth.decorator';
import { ErrorCode } from '../../../common/errors/error-code';
import { RedactInLogs } from '../../../common/http/route-policy';
import { ApiErrors, ApiQueryReadByHand } from '../../../common/openapi/api-errors.decorator';
import { ArchivesService } from './archives.service';

/** The signed download link of an archive (outside /admin: the signature is the credential). */
@ApiTags('Admin')
@Controller('archives')
export class ArchiveDownloadController {
  constructor(private readonly archives: ArchivesService) {}

  @Get(':archiveId/download')
  @Public()
  // The signature alone downloads a user's data for 24 hours.
  @RedactInLogs({ query: ['signature'] })
  @ApiOperation({
    operationId: 'download_archive',
    summary: 'Download an archive through its signed link',
    description:
      'The URL handed out by `get_archive_download_url`; no `Authorization` header is needed. ' +
      'A tampered, foreign or expired link, or an archive no longer available → 403 `ACCESS_DENIED`.',
  })
  @ApiParam({ name: 'archiveId', type: String })
  @ApiQuery({ name: 'expires', type: String, description: 'Unix time (s) the link expires at' })
  @ApiQuery({
    name: 'signature',
    type: String,
    description: 'HMAC-SHA-256 of the link (base64url)',
  })
  @ApiProduces('application/zip')
  @ApiOkResponse({
    description: 'The zip (one JSON file per kind of data, plus manifest.json).',
    schema: { type: 'string', format: 'binary' },
  })
  @ApiErrors(ErrorCode.AccessDenied)
  @ApiQueryReadByHand()
  async download(
    @Param('archiveId') archiveId: string,
    @Query('expires') expires: unknown,
    @Query('signature') signature: unknown,
  ): Promise<StreamableFile> {
    const file = await this.archives.open(archiveId, expires, signature);
    return new StreamableFile(file.stream, {
      type: 'application/zip',
      length: file.size,
      disposition: `attachment; filename="${file.filename}"`,
    });
  }
}
