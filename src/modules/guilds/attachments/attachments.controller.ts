import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  StreamableFile,
} from '@nestjs/common';
import {
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller, Public } from '../../../common/auth/auth.decorator';
import type { Caller } from '../../../common/auth/caller';
import { ErrorCode } from '../../../common/errors/error-code';
import type { HttpRequest, HttpResponse } from '../../../common/http/http-types';
import { RedactInLogs } from '../../../common/http/route-policy';
import { ApiErrors, ApiQueryReadByHand } from '../../../common/openapi/api-errors.decorator';
import { REFRESH_URLS_EXAMPLES } from './attachments.examples';
import { AttachmentsService } from './attachments.service';
import { RefreshUrlsDto } from './refresh-urls.dto';
import { RefreshUrlsResponse } from './refresh-urls.response';
import { sendDownload } from './send-download';

const BINARY = { type: 'string', format: 'binary' } as const;

/**
 * Message files behind Discord-style signed links (`ex`, `is`, `hm`): downloading one (the link is
 * the credential) and signing links again (`refresh-urls`, for whoever can still read the message).
 */
@ApiTags('Channels')
@Controller('attachments')
export class AttachmentsController {
  constructor(private readonly attachments: AttachmentsService) {}

  @Post('refresh-urls')
  @HttpCode(200)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'refresh_attachment_urls',
    summary: 'Refresh attachment links',
    description:
      'Discord’s refresh: 1–50 attachment links (fresh or expired) → a newly signed link for ' +
      'each file that is still on a message the caller can read (VIEW_CHANNEL and ' +
      'READ_MESSAGE_HISTORY in its channel). Links the caller cannot see, to files that are ' +
      'gone, and anything that is not an attachment link are left out of the answer.',
  })
  @ApiBody({ type: RefreshUrlsDto, examples: REFRESH_URLS_EXAMPLES })
  @ApiOkResponse({
    type: RefreshUrlsResponse,
    description: 'A fresh link for each link the caller may still see.',
  })
  refreshUrls(
    @CurrentCaller() caller: Caller,
    @Body() dto: RefreshUrlsDto,
  ): Promise<RefreshUrlsResponse> {
    return this.attachments.refreshUrls(caller.userId, dto.attachment_urls);
  }

  @Get(':channel_id/:attachment_id/:filename')
  @Public()
  // Whoever holds `hm` downloads the file until the link expires.
  @RedactInLogs({ query: ['hm'] })
  @ApiOperation({
    operationId: 'download_attachment',
    summary: 'Download an attachment through its signed link',
    description:
      'The `url` of an attachment object; no `Authorization` header is needed — the signed link ' +
      'is the credential, until `ex`. A tampered, foreign or expired link → 403 `ACCESS_DENIED` ' +
      '(`POST /attachments/refresh-urls` signs it again); a file no longer on a message → 404 ' +
      '`UNKNOWN_ATTACHMENT`. The stored (sniffed) media type with `X-Content-Type-Options: ' +
      "nosniff` and `Content-Security-Policy: default-src 'none'; sandbox`; `Content-" +
      'Disposition: inline` only for raster images, audio and video, `attachment` otherwise (SVG ' +
      'and HTML included). Strong `ETag` (`If-None-Match` → 304), one byte range per request ' +
      '(`Range` → 206, `If-Range`; unsatisfiable → 416 with `Content-Range: bytes */<size>`), ' +
      'cacheable privately until the link expires. HEAD answers the same headers.',
  })
  @ApiParam({ name: 'channel_id', type: String, description: 'The channel of the message' })
  @ApiParam({ name: 'attachment_id', type: String, description: 'The attachment’s id' })
  @ApiParam({
    name: 'filename',
    type: String,
    description: 'Its filename (not signed: the download is named by the stored one)',
  })
  @ApiQuery({ name: 'ex', type: String, description: 'When the link expires (hex Unix seconds)' })
  @ApiQuery({ name: 'is', type: String, description: 'When it was issued (hex Unix seconds)' })
  @ApiQuery({ name: 'hm', type: String, description: 'Its signature (HMAC-SHA-256, hex)' })
  @ApiProduces('*/*')
  @ApiOkResponse({ description: 'The file.', schema: BINARY })
  @ApiResponse({ status: 206, description: 'The byte range asked for.', schema: BINARY })
  @ApiResponse({ status: 304, description: 'Not modified (`If-None-Match`).' })
  @ApiErrors(ErrorCode.AccessDenied, ErrorCode.UnknownAttachment, ErrorCode.RangeNotSatisfiable)
  @ApiQueryReadByHand()
  async download(
    @Param('channel_id') channelId: string,
    @Param('attachment_id') attachmentId: string,
    @Query('ex') ex: unknown,
    @Query('is') is: unknown,
    @Query('hm') hm: unknown,
    @Req() req: HttpRequest,
    @Res({ passthrough: true }) res: HttpResponse,
  ): Promise<StreamableFile | undefined> {
    const download = await this.attachments.download(channelId, attachmentId, { ex, is, hm }, req);
    return sendDownload(res, download);
  }
}
