import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { DataSource } from 'typeorm';
import { decryptSecret, encryptSecret } from '../../common/crypto/tokens';
import { AppConfig } from '../../config/app.config';

const MAX_CACHED_SIGNING_KEYS = 10_000;

/** A new application key pair: the public key as Discord shows it, the private key sealed. */
export interface ApplicationKeyPair {
  verifyKey: string;
  signingKeyEncrypted: string;
}

/**
 * Each application's Ed25519 key pair (DESIGN.md "Interactions"): `verify_key` is what a bot
 * checks the signature of an interaction POSTed to its endpoint with; the private key never
 * leaves the server unsealed.
 */
@Injectable()
export class ApplicationKeys {
  /** Unsealed private keys by application id, with the public key they belong to. */
  private readonly signingKeys = new Map<string, { verifyKey: string; key: KeyObject }>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
  ) {}

  newKeyPair(): ApplicationKeyPair {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    // The raw 32-byte public key is the tail of its SPKI DER encoding (a fixed 12-byte header).
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    return {
      verifyKey: raw.toString('hex'),
      signingKeyEncrypted: encryptSecret(this.config.secretKey, pkcs8),
    };
  }

  /**
   * The application's `verify_key`, made now for an application created before keys existed
   * (the first writer wins; a concurrent caller reads its key).
   */
  async verifyKeyOf(app: { id: string; verifyKey: string | null }): Promise<string> {
    if (app.verifyKey) return app.verifyKey;
    const pair = this.newKeyPair();
    await this.db.query(
      `UPDATE oauth2_applications SET verify_key = $2, signing_key_encrypted = $3
        WHERE id = $1 AND verify_key IS NULL`,
      [app.id, pair.verifyKey, pair.signingKeyEncrypted],
    );
    const [row] = await this.db.query<Array<{ verify_key: string | null }>>(
      'SELECT verify_key FROM oauth2_applications WHERE id = $1',
      [app.id],
    );
    return row?.verify_key ?? pair.verifyKey;
  }

  /**
   * The application's private key, unsealed (made now if the application has none yet). Kept in
   * memory as a KeyObject, which never serializes its key material (nothing logs it by mistake).
   */
  async signingKeyOf(app: { id: string; verifyKey: string | null }): Promise<KeyObject> {
    const known = this.signingKeys.get(app.id);
    if (known && known.verifyKey === app.verifyKey) return known.key;
    await this.verifyKeyOf(app);
    const [row] = await this.db.query<Array<{ verify_key: string; signing_key_encrypted: string }>>(
      'SELECT verify_key, signing_key_encrypted FROM oauth2_applications WHERE id = $1',
      [app.id],
    );
    if (!row?.signing_key_encrypted) throw new Error(`application ${app.id} has no signing key`);
    const key = createPrivateKey({
      key: Buffer.from(decryptSecret(this.config.secretKey, row.signing_key_encrypted), 'base64'),
      format: 'der',
      type: 'pkcs8',
    });
    if (this.signingKeys.size >= MAX_CACHED_SIGNING_KEYS) this.signingKeys.clear();
    this.signingKeys.set(app.id, { verifyKey: row.verify_key, key });
    return key;
  }
}
