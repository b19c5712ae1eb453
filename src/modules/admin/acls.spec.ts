import { hasAcl } from '../../common/auth/admin-acl.guard';
import { effectiveAcls, isKnownAcl, ungrantableAcls } from './acls';

describe('admin ACLs', () => {
  it('* holds every ACL', () => {
    expect(hasAcl(['*'], 'ban:ip:add')).toBe(true);
    expect(hasAcl(['ban:ip:check'], 'ban:ip:add')).toBe(false);
    expect(hasAcl(['ban:ip:add'], 'ban:ip:add')).toBe(true);
  });

  it('a key is narrowed to what its owner still holds', () => {
    expect(effectiveAcls(['*'], ['*'])).toEqual(['*']);
    expect(effectiveAcls(['*'], ['audit_log:view'])).toEqual(['audit_log:view']);
    expect(effectiveAcls(['audit_log:view', 'asset:purge'], ['audit_log:view'])).toEqual([
      'audit_log:view',
    ]);
    expect(effectiveAcls(['asset:purge'], [])).toEqual([]);
  });

  it('only held ACLs can be granted', () => {
    expect(ungrantableAcls(['*'], ['*', 'asset:purge'])).toEqual([]);
    expect(ungrantableAcls(['audit_log:view'], ['audit_log:view', '*', 'asset:purge'])).toEqual([
      '*',
      'asset:purge',
    ]);
  });

  it('knows the DESIGN.md names only', () => {
    expect(isKnownAcl('archive:view_all')).toBe(true);
    expect(isKnownAcl('archive:view')).toBe(false);
  });
});
