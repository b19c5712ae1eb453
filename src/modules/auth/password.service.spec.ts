import { PasswordService } from './password.service';

// A broken native argon2 binding must fail CI loudly (TOOLCHAIN.md).
describe('PasswordService (argon2id)', () => {
  const svc = new PasswordService();
  beforeAll(() => svc.onModuleInit());

  it('hashes with argon2id and verifies', async () => {
    const hash = await svc.hash('correct horse battery staple');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(hash).not.toContain('correct horse');
    await expect(svc.verify(hash, 'correct horse battery staple')).resolves.toBe(true);
    await expect(svc.verify(hash, 'wrong')).resolves.toBe(false);
  });

  it('answers false for a missing hash, after doing the same work', async () => {
    await expect(svc.verify(null, 'anything')).resolves.toBe(false);
  });

  it('answers false for a garbage hash instead of throwing', async () => {
    await expect(svc.verify('not-a-hash', 'x')).resolves.toBe(false);
  });
});
