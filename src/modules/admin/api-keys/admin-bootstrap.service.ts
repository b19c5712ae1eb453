import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isEmail } from 'class-validator';
import { DataSource } from 'typeorm';
import { SYSTEM_ACTOR } from '../../audit/actor';
import { AuditLog } from '../../audit/audit-log.service';
import { slugifyUsername } from '../../users/username-slug';
import { UsersService } from '../../users/users.service';
import { AdminAcl } from '../acls';
import { AdminApiKeysService } from './admin-api-keys.service';

export interface BootstrapResult {
  userId: string;
  /** Whether the user was created (false: an existing user was promoted). */
  created: boolean;
  keyId: string;
  /** `adm_<key_id>_<secret>`, shown once. */
  key: string;
}

/**
 * How an operator gets the first admin key (`npm run admin:bootstrap -- --email <email>`): the
 * user with that e-mail (created without a password when missing — they set one through the
 * password-reset flow) is given ACL `*` and a new key, in one transaction with its audit entry.
 */
@Injectable()
export class AdminBootstrapService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly users: UsersService,
    private readonly keys: AdminApiKeysService,
    private readonly audit: AuditLog,
  ) {}

  async bootstrap(rawEmail: string): Promise<BootstrapResult> {
    const email = rawEmail.trim();
    if (!isEmail(email)) throw new Error(`not an e-mail address: ${JSON.stringify(rawEmail)}`);
    return this.db.transaction(async (manager) => {
      let user = await this.users.findByEmail(email, manager);
      const created = !user;
      user ??= await this.users.create(
        { username: slugifyUsername(email.split('@')[0] ?? ''), email },
        manager,
      );
      await this.users.update(manager, user.id, { acls: [AdminAcl.All] });
      const { key, secret } = await this.keys.mint(manager, user.id, {
        name: 'bootstrap',
        acls: [AdminAcl.All],
      });
      await this.audit.record(manager, {
        actor: SYSTEM_ACTOR,
        action: 'admin.bootstrap',
        targetType: 'user',
        targetId: user.id,
        metadata: { created, key_id: key.id },
      });
      return { userId: user.id, created, keyId: key.id, key: secret };
    });
  }
}
