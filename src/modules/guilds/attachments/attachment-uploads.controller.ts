import { Body, Controller, Delete, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import { Auth, CurrentCaller, Public } from '../../../common/auth/auth.decorator';
import type { Caller } from '../../../common/auth/caller';
import { ErrorCode } from '../../../common/errors/error-code';
import { RequestStream } from '../../../common/http/body-reader';
import { RawStream, RedactInLogs } from '../../../common/http/route-policy';
import { ApiErrors, ApiQueryReadByHand } from '../../../common/openapi/api-errors.decorator';
import { ChannelId } from '../../../common/snowflake/id-params';
import { AttachmentUploadsService } from './attachment-uploads.service';
import { CreateUploadUrlsDto } from './upload-urls.dto';
import { UploadUrlsResponse } from './upload-urls.response';

const CREATE_UPLOAD_URLS_EXAMPLES = {
  one: {
    summary: 'One file',
    value: { files: [{ id: '0', filename: 'holiday.png', file_size: 3_145_728 }] },
  },
};

const UPLOAD_FILENAME =
  'The `upload_filename` of the upload (`<uuid>/<filename>`), as `POST ' +
  '/channels/{channel_id}/attachments` answered it; its `/` may be sent as is or as `%2F`.';

/**
 * Discord's upload URLs: ask for one per file, PUT the bytes there, then name the upload in a
 * message's `attachments` (`uploaded_filename`). The rules are in AttachmentUploadsService.
 */
@ApiTags('Channels')
@Controller()
export class AttachmentUploadsController {
  constructor(private readonly uploads: AttachmentUploadsService) {}

  @Post('channels/:channel_id/attachments')
  @HttpCode(200)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'create_attachment_upload_urls',
    summary: 'Get upload URLs for files',
    description:
      'Discord’s flow for large files and browsers: one upload URL per file (1 to 10). PUT ' +
      'each file’s bytes — exactly `file_size` of them, no Authorization header — to its ' +
      '`upload_url` before it expires (ATTACHMENT_UPLOAD_TTL), then create the message with ' +
      '`attachments: [{ id, filename, uploaded_filename }]`. Needs VIEW_CHANNEL, SEND_MESSAGES ' +
      'and ATTACH_FILES; a file larger than ATTACHMENT_UPLOAD_MAX_BYTES → 413. Uploads never ' +
      'attached are deleted when they expire.',
  })
  @ApiBody({ type: CreateUploadUrlsDto, examples: CREATE_UPLOAD_URLS_EXAMPLES })
  @ApiOkResponse({ type: UploadUrlsResponse, description: 'One upload URL per file, in order.' })
  @ApiErrors(ErrorCode.UnknownChannel, ErrorCode.MissingPermissions)
  create(
    @CurrentCaller() caller: Caller,
    @ChannelId() channelId: string,
    @Body() dto: CreateUploadUrlsDto,
  ): Promise<UploadUrlsResponse> {
    return this.uploads.create(caller.userId, channelId, dto);
  }

  @Put('attachments/uploads/:attachment_id')
  @HttpCode(200)
  @Public()
  @RawStream()
  // The signature alone lets its holder send the file until the upload expires.
  @RedactInLogs({ query: ['signature'] })
  @ApiOperation({
    operationId: 'upload_attachment',
    summary: 'Send a file’s bytes to its upload URL',
    description:
      'The `upload_url` Parley hands out when the bucket does not take uploads itself: the body ' +
      'is the file, exactly `file_size` bytes (a `Content-Length` that differs is refused before ' +
      'a byte is read; a chunked body is cut off past it with 413), streamed to storage. No ' +
      'Authorization header: the signature is the credential. A tampered or expired URL → 403 ' +
      '`ACCESS_DENIED`; a cancelled upload → 404; one already received → 409. After a failure ' +
      'nothing is kept and the file may be sent again. Answers 200 with an empty body.',
  })
  @ApiParam({
    name: 'attachment_id',
    description: 'The upload’s attachment ID (snowflake), as its `upload_url` names it.',
  })
  @ApiQuery({ name: 'expires', type: String, description: 'Unix time (s) the URL expires at' })
  @ApiQuery({
    name: 'signature',
    type: String,
    description: 'HMAC-SHA-256 of the URL (base64url)',
  })
  @ApiConsumes('application/octet-stream')
  @ApiBody({
    description: 'The file’s bytes, as they are (any media type; it is sniffed from the bytes).',
    schema: { type: 'string', format: 'binary' },
    examples: { text: { summary: 'A small text file', value: 'hello, world\n' } },
  })
  @ApiOkResponse({ description: 'Stored (empty body).' })
  @ApiErrors(ErrorCode.AccessDenied, ErrorCode.UnknownAttachment, ErrorCode.Conflict)
  @ApiQueryReadByHand()
  receive(
    @Param('attachment_id') attachmentId: string,
    @Query('expires') expires: unknown,
    @Query('signature') signature: unknown,
    @RequestStream() body: IncomingMessage,
  ): Promise<void> {
    return this.uploads.receive(attachmentId, expires, signature, body);
  }

  @Delete('attachments/:upload_id/:filename')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_attachment_upload',
    summary: 'Cancel an upload',
    description:
      'Discord’s `DELETE /attachments/{uploaded_filename}`: deletes an upload of the caller’s ' +
      'that no message holds, with whatever bytes it received. Anything else → 404.',
  })
  @ApiParam({ name: 'upload_id', description: 'The UUID part of the `upload_filename`.' })
  @ApiParam({ name: 'filename', description: 'The filename part of the `upload_filename`.' })
  @ApiNoContentResponse({ description: 'Cancelled.' })
  @ApiErrors(ErrorCode.UnknownAttachment)
  cancel(
    @CurrentCaller() caller: Caller,
    @Param('upload_id') uploadId: string,
    @Param('filename') filename: string,
  ): Promise<void> {
    return this.uploads.cancel(caller.userId, `${uploadId}/${filename}`);
  }

  /** The same, for a client that escapes the `/` of the name (`%2F`): one path segment. */
  @Delete('attachments/:upload_filename')
  @HttpCode(204)
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'delete_attachment_upload_escaped',
    summary: 'Cancel an upload (name escaped)',
    description:
      'As `delete_attachment_upload`, for the `upload_filename` sent as one path segment ' +
      '(`<uuid>%2F<filename>`).',
  })
  @ApiParam({ name: 'upload_filename', description: UPLOAD_FILENAME })
  @ApiNoContentResponse({ description: 'Cancelled.' })
  @ApiErrors(ErrorCode.UnknownAttachment)
  cancelEscaped(
    @CurrentCaller() caller: Caller,
    @Param('upload_filename') uploadFilename: string,
  ): Promise<void> {
    return this.uploads.cancel(caller.userId, uploadFilename);
  }
}
