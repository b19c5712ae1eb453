import type { HttpResponse } from '../../common/http/http-types';
import type { MessageResponse } from '../guilds/guild.response';
import type { ExecuteResult } from './webhook-execution.service';

/** `?wait=true` (or `1`) asks for the created message. */
export const isWait = (wait: unknown): boolean => wait === 'true' || wait === '1';

/**
 * Status and body of an execute: with wait and a message → 200 + message; a chatcompat sender
 * that does not wait gets Slack's `200 ok`; otherwise 204.
 */
export function sendExecuteResult(
  res: HttpResponse,
  result: ExecuteResult,
  wait: unknown,
  style: 'discord' | 'chatcompat' = 'discord',
): MessageResponse | string | undefined {
  if (result.posted && isWait(wait)) {
    res.status(200);
    return result.message;
  }
  if (style === 'chatcompat' && result.posted) {
    res.status(200).type('text/plain');
    return 'ok';
  }
  res.status(204);
  return undefined;
}
