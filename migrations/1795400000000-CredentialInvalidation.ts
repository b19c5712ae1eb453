import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every instance caches resolved credentials in memory. A revoked session, token, bot or user
 * must be refused at once on every instance, whatever code path (or manual SQL) revoked it: these
 * triggers announce each change on the `parley_credentials` channel (delivered at commit), and
 * every instance LISTENs and drops the matching entries.
 * Payloads: `s:<session id>`, `b:<oauth2 token id>`, `a:<application id>`, `u:<user id>`.
 */
export class CredentialInvalidation1795400000000 implements MigrationInterface {
  name = 'CredentialInvalidation1795400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION parley_notify_credential() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('parley_credentials', TG_ARGV[0] || ':' || OLD.id::text);
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER auth_sessions_notify_credential
        AFTER DELETE OR UPDATE OF token_hash, user_id ON auth_sessions
        FOR EACH ROW EXECUTE FUNCTION parley_notify_credential('s')`);
    await queryRunner.query(`
      CREATE TRIGGER oauth2_tokens_notify_credential
        AFTER DELETE OR UPDATE ON oauth2_tokens
        FOR EACH ROW EXECUTE FUNCTION parley_notify_credential('b')`);
    await queryRunner.query(`
      CREATE TRIGGER oauth2_applications_notify_credential
        AFTER DELETE OR UPDATE ON oauth2_applications
        FOR EACH ROW EXECUTE FUNCTION parley_notify_credential('a')`);
    await queryRunner.query(`
      CREATE TRIGGER users_notify_credential
        AFTER DELETE OR UPDATE ON users
        FOR EACH ROW EXECUTE FUNCTION parley_notify_credential('u')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER users_notify_credential ON users');
    await queryRunner.query(
      'DROP TRIGGER oauth2_applications_notify_credential ON oauth2_applications',
    );
    await queryRunner.query('DROP TRIGGER oauth2_tokens_notify_credential ON oauth2_tokens');
    await queryRunner.query('DROP TRIGGER auth_sessions_notify_credential ON auth_sessions');
    await queryRunner.query('DROP FUNCTION parley_notify_credential()');
  }
}
