import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UsersService } from '../../users/users.service';
import { AuthenticatorType } from './second-factors';

/**
 * Keeps `users.authenticator_types` and `users.mfa_enabled` in step with the enrolled factors.
 * Called in the transaction that enrols or removes the factor; the users trigger announces the
 * change to every instance's profile cache at commit.
 */
@Injectable()
export class MfaFactorsService {
  constructor(private readonly users: UsersService) {}

  async add(userId: string, type: AuthenticatorType, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE users SET
         authenticator_types = ARRAY(SELECT DISTINCT t FROM unnest(array_append(authenticator_types, $2::smallint)) t ORDER BY t),
         mfa_enabled = true
       WHERE id = $1`,
      [userId, type],
    );
    this.users.forget(userId);
  }

  async remove(userId: string, types: AuthenticatorType[], manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE users SET
         authenticator_types = ARRAY(SELECT t FROM unnest(authenticator_types) t WHERE t <> ALL($2::smallint[]) ORDER BY t),
         mfa_enabled = EXISTS(SELECT 1 FROM unnest(authenticator_types) t WHERE t <> ALL($2::smallint[]))
       WHERE id = $1`,
      [userId, types],
    );
    this.users.forget(userId);
  }
}
