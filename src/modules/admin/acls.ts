/**
 * Admin ACLs (DESIGN.md §4 "Admin"). A key holds a list of them; `*` holds every ACL. Each admin
 * route names the one ACL it needs in `@Auth({ kind: 'admin', acl })`.
 */
export const AdminAcl = {
  All: '*',
  /** Reserved for a future console login; no route requires it. */
  Authenticate: 'admin:authenticate',
  ApiKeyManage: 'admin_api_key:manage',
  ArchiveTriggerUser: 'archive:trigger:user',
  ArchiveTriggerGuild: 'archive:trigger:guild',
  ArchiveViewAll: 'archive:view_all',
  AssetPurge: 'asset:purge',
  AttachmentPurge: 'attachment:purge',
  AuditLogView: 'audit_log:view',
  BanEmailAdd: 'ban:email:add',
  BanEmailCheck: 'ban:email:check',
  BanEmailRemove: 'ban:email:remove',
  BanIpAdd: 'ban:ip:add',
  BanIpCheck: 'ban:ip:check',
  BanIpRemove: 'ban:ip:remove',
  BanPhoneAdd: 'ban:phone:add',
  BanPhoneCheck: 'ban:phone:check',
  BanPhoneRemove: 'ban:phone:remove',
  BulkAddGuildMembers: 'bulk:add:guild_members',
  InstanceConfigView: 'instance:config:view',
} as const;

export type AdminAclName = (typeof AdminAcl)[keyof typeof AdminAcl];

export const ALL_ACLS: readonly string[] = Object.values(AdminAcl);

export function isKnownAcl(value: string): value is AdminAclName {
  return ALL_ACLS.includes(value);
}

/**
 * What a key may actually do: its own ACLs, narrowed to what its owner still holds (a key never
 * outlives a demotion of its owner).
 */
export function effectiveAcls(keyAcls: readonly string[], ownerAcls: readonly string[]): string[] {
  if (ownerAcls.includes(AdminAcl.All)) return [...keyAcls];
  if (keyAcls.includes(AdminAcl.All)) return ownerAcls.filter(isKnownAcl);
  return keyAcls.filter((acl) => ownerAcls.includes(acl));
}

/** The ACLs of `requested` that a holder of `granter` may not hand out. */
export function ungrantableAcls(
  granter: readonly string[],
  requested: readonly string[],
): string[] {
  if (granter.includes(AdminAcl.All)) return [];
  return requested.filter((acl) => !granter.includes(acl));
}
