import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { AdminAclGuard } from './admin-acl.guard';
import type { ResolvedAuthOptions } from './auth.metadata';
import type { Caller } from './caller';

const admin = (acls: string[]): Caller => ({
  kind: 'admin',
  userId: '1',
  keyId: '2',
  acls,
  expiresAt: null,
});
const route = (acls: string[]): ResolvedAuthOptions => ({ kinds: ['admin'], scopes: [], acls });

/** The error check() throws, or null. */
function refusal(auth: ResolvedAuthOptions, caller: Caller | undefined): ApiError | null {
  try {
    new AdminAclGuard().check(auth, caller);
    return null;
  } catch (e) {
    return e as ApiError;
  }
}

describe('AdminAclGuard', () => {
  it('admits a key holding the ACL, one of several, or *', () => {
    expect(refusal(route(['ban:ip:add']), admin(['ban:ip:add']))).toBeNull();
    expect(refusal(route(['a', 'b']), admin(['b']))).toBeNull();
    expect(refusal(route(['ban:ip:add']), admin(['*']))).toBeNull();
  });

  it('answers 401 without an admin key, whatever other credential was sent', () => {
    expect(refusal(route(['a']), undefined)?.code).toBe(ErrorCode.Unauthorized);
    const user: Caller = { kind: 'session', userId: '1', sessionId: '2' };
    expect(refusal(route(['a']), user)?.code).toBe(ErrorCode.Unauthorized);
  });

  it('answers 403 MISSING_ACL naming the ACL, or the ACLs any of which would do', () => {
    const one = refusal(route(['a']), admin(['b']));
    expect([one?.code, one?.extra]).toEqual([ErrorCode.MissingAcl, { required_acl: 'a' }]);
    const several = refusal(route(['a', 'c']), admin(['b']));
    expect(several?.extra).toEqual({ required_acl: 'a', required_acls: ['a', 'c'] });
  });
});
