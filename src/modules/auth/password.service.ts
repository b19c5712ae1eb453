import { Injectable, OnModuleInit } from '@nestjs/common';
import * as argon2 from 'argon2';

// OWASP password storage cheat sheet: argon2id, m = 19 MiB, t = 2, p = 1.
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** argon2id hashing. Runs on libuv's thread pool, so logins never block the event loop. */
@Injectable()
export class PasswordService implements OnModuleInit {
  private dummyHash: string;

  async onModuleInit(): Promise<void> {
    // Verified against when the e-mail is unknown, so both paths cost one argon2 verification.
    this.dummyHash = await argon2.hash('parley-dummy-password-for-timing', OPTIONS);
  }

  hash(password: string): Promise<string> {
    return argon2.hash(password, OPTIONS);
  }

  /** Verifies; with a null hash (unknown user, no password) still spends the same time. */
  async verify(hash: string | null, password: string): Promise<boolean> {
    try {
      const ok = await argon2.verify(hash ?? this.dummyHash, password);
      return hash !== null && ok;
    } catch {
      return false;
    }
  }
}
