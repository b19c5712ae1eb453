import { QueryFailedError } from 'typeorm';
import {
  databaseUnavailableError,
  DATABASE_RETRY_AFTER_S,
  describeDatabaseError,
  isDatabaseUnavailable,
} from './database-unavailable';
import { toApiError } from './all-exceptions.filter';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const failed = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

describe('isDatabaseUnavailable', () => {
  it.each([
    ['pool connect refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['socket reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['host unknown', withCode('getaddrinfo ENOTFOUND db', 'ENOTFOUND')],
    ['query on a dropped connection', failed(new Error('Connection terminated unexpectedly'))],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['connect timeout', new Error('Connection terminated due to connection timeout')],
    [
      'admin shutdown',
      failed(withCode('terminating connection due to administrator command', '57P01')),
    ],
    ['crash shutdown', failed(withCode('terminating connection because of crash', '57P02'))],
    ['starting up', withCode('the database system is starting up', '57P03')],
    ['connection exception class 08', failed(withCode('connection failure', '08006'))],
    ['too many connections', withCode('sorry, too many clients already', '53300')],
    [
      'prepared statement on a refused pool',
      failed(withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')),
    ],
    [
      'happy-eyeballs AggregateError',
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], 'connect'),
    ],
  ])('%s → unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['unique violation', failed(withCode('duplicate key value', '23505'))],
    ['bad input', failed(withCode('invalid input syntax for type bigint', '22P02'))],
    ['deadlock', failed(withCode('deadlock detected', '40P01'))],
    ['programming error', new TypeError("Cannot read properties of undefined (reading 'id')")],
    [
      'fetch to another host',
      new TypeError('fetch failed', { cause: withCode('x', 'ECONNREFUSED') }),
    ],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s → not unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('maps to 503 SERVICE_UNAVAILABLE with Retry-After in toApiError', () => {
    const err = toApiError(failed(new Error('Connection terminated unexpectedly')));
    expect(err).toEqual(databaseUnavailableError());
    const api = databaseUnavailableError();
    expect(api.status).toBe(503);
    expect(api.headers).toEqual({ 'Retry-After': String(DATABASE_RETRY_AFTER_S) });
    expect(api.toBody()).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is unavailable. Retry shortly.',
      retry_after: DATABASE_RETRY_AFTER_S,
    });
  });

  it('describes the driver error, not the statement', () => {
    expect(describeDatabaseError(failed(withCode('terminating connection', '57P01')))).toBe(
      '57P01: terminating connection',
    );
    expect(
      describeDatabaseError(withCode('connect ECONNREFUSED 10.0.0.1:5432', 'ECONNREFUSED')),
    ).toBe('connect ECONNREFUSED 10.0.0.1:5432');
  });
});
