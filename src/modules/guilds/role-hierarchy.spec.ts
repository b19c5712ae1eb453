import { compareRoles, ranksBelow } from './role-hierarchy';

describe('role hierarchy', () => {
  it('ranks by position, then the older (lower id) role higher', () => {
    expect(compareRoles({ id: '5', position: 2 }, { id: '3', position: 1 })).toBeGreaterThan(0);
    expect(compareRoles({ id: '3', position: 1 }, { id: '5', position: 1 })).toBeGreaterThan(0);
    expect(compareRoles({ id: '5', position: 1 }, { id: '3', position: 1 })).toBeLessThan(0);
    expect(compareRoles({ id: '5', position: 1 }, { id: '5', position: 1 })).toBe(0);
  });

  it('compares ids as numbers, not strings', () => {
    expect(
      compareRoles(
        { id: '999999999999999999', position: 1 },
        { id: '1000000000000000000', position: 1 },
      ),
    ).toBeGreaterThan(0);
  });

  it('a role is managed only below the manager’s highest role', () => {
    const top = { id: '10', position: 3 };
    expect(ranksBelow({ id: '11', position: 2 }, top)).toBe(true);
    expect(ranksBelow(top, top)).toBe(false);
    expect(ranksBelow({ id: '12', position: 3 }, top)).toBe(true);
    expect(ranksBelow({ id: '9', position: 3 }, top)).toBe(false);
  });
});
