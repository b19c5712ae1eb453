import { StreamableFile } from '@nestjs/common';
import type { HttpResponse } from '../../../common/http/http-types';
import type { AttachmentDownload } from './attachments.service';

/**
 * Puts a download on the response: its status and headers, and its bytes as a StreamableFile,
 * which both adapters stream with backpressure and destroy when the client goes away mid-way
 * (nothing is buffered, no blob stream is left open). The entity headers go through the
 * StreamableFile, which sets them as they are: Express's `res.set` would add a charset to a text
 * type the bytes may not have.
 */
export function sendDownload(
  res: HttpResponse,
  download: AttachmentDownload,
): StreamableFile | undefined {
  res.status(download.status);
  for (const [name, value] of Object.entries(download.headers)) res.header(name, value);
  const body = download.body;
  if (!body) return undefined;
  return new StreamableFile(body.stream, {
    type: body.type,
    length: body.length,
    disposition: body.disposition,
  });
}
