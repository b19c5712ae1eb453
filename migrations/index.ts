import type { MixedList } from 'typeorm';
import { Accounts1795327247067 } from './1795327247067-Accounts';
import { GuildsChannelsMessagesWebhooks1795327793686 } from './1795327793686-GuildsChannelsMessagesWebhooks';
import { OAuth2Provider1795327903738 } from './1795327903738-OAuth2Provider';
import { AuthFlows1795328093746 } from './1795328093746-AuthFlows';
import { CredentialInvalidation1795400000000 } from './1795400000000-CredentialInvalidation';
import { AdminKeysAuditLog1795468870875 } from './1795468870875-AdminKeysAuditLog';
import { Bans1795468870876 } from './1795468870876-Bans';
import { Archives1795468870877 } from './1795468870877-Archives';
import { MfaCore1795500000000 } from './1795500000000-MfaCore';
import { MfaTotp1795500001000 } from './1795500001000-MfaTotp';
import { MfaSms1795500002000 } from './1795500002000-MfaSms';
import { WebAuthn1795500003000 } from './1795500003000-WebAuthn';
import { Sso1795500004000 } from './1795500004000-Sso';
import { OidcProvider1795600000000 } from './1795600000000-OidcProvider';
import { SsoNonceSealed1795615031630 } from './1795615031630-SsoNonceSealed';
import { MessageEditsMentions1795700000000 } from './1795700000000-MessageEditsMentions';
import { RealtimeEventOutbox1795800000000 } from './1795800000000-RealtimeEventOutbox';
import { ManagedRoles1795800001000 } from './1795800001000-ManagedRoles';
import { ApplicationVerifyKeys1795900000000 } from './1795900000000-ApplicationVerifyKeys';
import { MessageReplies1795900001000 } from './1795900001000-MessageReplies';
import { MessagePinsMentionRolesNonces1796000000000 } from './1796000000000-MessagePinsMentionRolesNonces';
import { MessageReactions1796000002000 } from './1796000002000-MessageReactions';
import { RoleStyleMemberNick1796000001000 } from './1796000001000-RoleStyleMemberNick';
import { GuildBans1796000003000 } from './1796000003000-GuildBans';
import { Interactions1796000013000 } from './1796000013000-Interactions';
import { ApplicationCommands1796000010000 } from './1796000010000-ApplicationCommands';
import { MessageComponents1796000012000 } from './1796000012000-MessageComponents';
import { ApplicationInteractionsEndpoint1796000011000 } from './1796000011000-ApplicationInteractionsEndpoint';
import { Attachments1796000014000 } from './1796000014000-Attachments';
import { WebhookSigningSecret1795583171420 } from './1795583171420-WebhookSigningSecret';

/**
 * Every migration, in order. `npm run migration:generate -- <Name>` writes a new file here and
 * appends its class to this list. Landed migrations are never edited.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const MIGRATIONS: MixedList<Function> = [
  Accounts1795327247067,
  GuildsChannelsMessagesWebhooks1795327793686,
  OAuth2Provider1795327903738,
  AuthFlows1795328093746,
  CredentialInvalidation1795400000000,
  AdminKeysAuditLog1795468870875,
  Bans1795468870876,
  Archives1795468870877,
  MfaCore1795500000000,
  MfaTotp1795500001000,
  MfaSms1795500002000,
  WebAuthn1795500003000,
  Sso1795500004000,
  WebhookSigningSecret1795583171420,
  OidcProvider1795600000000,
  SsoNonceSealed1795615031630,
  MessageEditsMentions1795700000000,
  RealtimeEventOutbox1795800000000,
  ManagedRoles1795800001000,
  ApplicationVerifyKeys1795900000000,
  MessageReplies1795900001000,
  MessagePinsMentionRolesNonces1796000000000,
  RoleStyleMemberNick1796000001000,
  MessageReactions1796000002000,
  GuildBans1796000003000,
  ApplicationCommands1796000010000,
  ApplicationInteractionsEndpoint1796000011000,
  MessageComponents1796000012000,
  Interactions1796000013000,
  Attachments1796000014000,
];
