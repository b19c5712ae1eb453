import { decodeAuditCursor, encodeAuditCursor } from './audit-log-cursor';

describe('audit log cursors', () => {
  it('round-trips list and search cursors', () => {
    const list = encodeAuditCursor({ kind: 'list', beforeId: '1300000000000000000' });
    expect(list).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeAuditCursor(list)).toEqual({ kind: 'list', beforeId: '1300000000000000000' });
    expect(decodeAuditCursor(encodeAuditCursor({ kind: 'search', offset: 150 }))).toEqual({
      kind: 'search',
      offset: 150,
    });
  });

  it('refuses anything it did not hand out', () => {
    for (const bad of [
      '',
      'not a cursor!',
      Buffer.from('x.1').toString('base64url'),
      Buffer.from('l.99999999999999999999').toString('base64url'),
      Buffer.from('l.').toString('base64url'),
    ]) {
      expect(decodeAuditCursor(bad)).toBeNull();
    }
  });
});
