import { UserPartialResponse } from '../users/user.response';

/** Discord's ban object. */
export class GuildBanResponse {
  /** The `X-Audit-Log-Reason` of the ban, when one was given. */
  reason: string | null;
  user: UserPartialResponse;
}
