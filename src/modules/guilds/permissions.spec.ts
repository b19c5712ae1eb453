import {
  ALL_PERMISSIONS,
  combine,
  DEFAULT_EVERYONE_PERMISSIONS,
  effectivePermissions,
  hasPermission,
  parsePermissions,
  Permissions,
} from './permissions';

describe('permissions', () => {
  it('uses the documented bit positions', () => {
    expect(Permissions.ADMINISTRATOR).toBe(8n);
    expect(Permissions.MANAGE_CHANNELS).toBe(16n);
    expect(Permissions.MANAGE_GUILD).toBe(32n);
    expect(Permissions.VIEW_CHANNEL).toBe(1024n);
    expect(Permissions.SEND_MESSAGES).toBe(2048n);
    expect(Permissions.READ_MESSAGE_HISTORY).toBe(65536n);
    expect(Permissions.MANAGE_ROLES).toBe(268435456n);
    expect(Permissions.MANAGE_WEBHOOKS).toBe(536870912n);
  });

  it('combines role bitfields given as strings or bigints', () => {
    expect(combine(['1024', 2048n, '0'])).toBe(3072n);
    expect(combine([])).toBe(0n);
  });

  it('requires every bit of the requested set', () => {
    const held = Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES;
    expect(hasPermission(held, Permissions.VIEW_CHANNEL)).toBe(true);
    expect(hasPermission(held, Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES)).toBe(true);
    expect(hasPermission(held, Permissions.VIEW_CHANNEL | Permissions.MANAGE_WEBHOOKS)).toBe(false);
    expect(hasPermission(0n, 0n)).toBe(true);
  });

  it('gives the owner every permission', () => {
    const p = effectivePermissions(0n, true);
    expect(hasPermission(p, ALL_PERMISSIONS)).toBe(true);
    expect(hasPermission(p, Permissions.MANAGE_WEBHOOKS | Permissions.MANAGE_GUILD)).toBe(true);
  });

  it('makes ADMINISTRATOR imply every permission', () => {
    const p = effectivePermissions(Permissions.ADMINISTRATOR, false);
    expect(hasPermission(p, Permissions.MANAGE_WEBHOOKS)).toBe(true);
    expect(hasPermission(p, Permissions.MANAGE_ROLES | Permissions.MANAGE_CHANNELS)).toBe(true);
  });

  it('leaves ordinary members with their roles only', () => {
    const p = effectivePermissions(DEFAULT_EVERYONE_PERMISSIONS, false);
    expect(p).toBe(DEFAULT_EVERYONE_PERMISSIONS);
    expect(hasPermission(p, Permissions.SEND_MESSAGES)).toBe(true);
    expect(hasPermission(p, Permissions.MANAGE_WEBHOOKS)).toBe(false);
  });

  it('parses permission strings within 63 bits', () => {
    expect(parsePermissions('536870912')).toBe(Permissions.MANAGE_WEBHOOKS);
    expect(parsePermissions(8)).toBe(8n);
    expect(parsePermissions('9223372036854775807')).toBe((1n << 63n) - 1n);
    expect(parsePermissions('9223372036854775808')).toBeNull();
    expect(parsePermissions('-1')).toBeNull();
    expect(parsePermissions('1e3')).toBeNull();
    expect(parsePermissions(-1)).toBeNull();
    expect(parsePermissions(null)).toBeNull();
  });
});
