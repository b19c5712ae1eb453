import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { AdminApiKeysService } from '../../src/modules/admin/api-keys/admin-api-keys.service';
import { unique } from './app';
import { registerUser, type TestUser } from './factories';

export interface TestAdminKey {
  /** `adm_<key_id>_<secret>` */
  key: string;
  keyId: string;
  /** The key's owner. */
  owner: TestUser;
  /** The `Authorization` header value. */
  header: string;
}

export interface AdminKeyOptions {
  /** ACLs of the owning user (default `*`). */
  ownerAcls?: string[];
  expiresInDays?: number;
  /** Reuse an existing owner instead of registering one. */
  owner?: TestUser;
}

/**
 * An admin key the way an operator gets the first one (the bootstrap path: a user promoted to
 * ACLs, then a key minted for them), so tests can start from any ACL set.
 */
export async function createAdminKey(
  app: ParleyApp,
  acls: string[] = ['*'],
  options: AdminKeyOptions = {},
): Promise<TestAdminKey> {
  const owner = options.owner ?? (await registerUser(app));
  await app
    .get(DataSource)
    .query('UPDATE users SET acls = $2 WHERE id = $1', [owner.userId, options.ownerAcls ?? ['*']]);
  const { key, secret } = await app.get(AdminApiKeysService).mint(undefined, owner.userId, {
    name: unique('key-'),
    acls,
    expiresInDays: options.expiresInDays,
  });
  return { key: secret, keyId: key.id, owner, header: `Admin ${secret}` };
}

/** Makes a key expired (as if its `expires_in_days` had run out). */
export async function expireAdminKey(app: ParleyApp, keyId: string): Promise<void> {
  await app
    .get(DataSource)
    .query(`UPDATE admin_api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
      keyId,
    ]);
}
