import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UsersService } from '../../users/users.service';
import { AuthenticatorType } from './second-factors';

/**
 * Keeps `users.authenticator_types` and `users.mfa_enabled` in step with the enrolled factors
 * (through UsersService, their owner, which announces a change of `mfa_enabled` to the user's
 * sessions). Called in the transaction that enrols or removes the factor; the users trigger
 * announces the change to every instance's profile cache at commit.
 */
@Injectable()
export class MfaFactorsService {
  constructor(private readonly users: UsersService) {}

  async add(userId: string, type: AuthenticatorType, manager: EntityManager): Promise<void> {
    await this.users.addAuthenticator(manager, userId, type);
    this.users.forget(userId);
  }

  async remove(userId: string, types: AuthenticatorType[], manager: EntityManager): Promise<void> {
    await this.users.removeAuthenticators(manager, userId, types);
    this.users.forget(userId);
  }
}
