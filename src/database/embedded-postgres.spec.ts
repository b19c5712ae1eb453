import { startFailureOutput } from './embedded-postgres';

describe('startFailureOutput', () => {
  it('is one line of what the server said, without its routine start and stop lines', () => {
    const output = [
      'LOG:  starting PostgreSQL 17.10 on x86_64-pc-linux-gnu, compiled by gcc 7.5.0, 64-bit',
      'LOG:  could not bind IPv4 address "127.0.0.1": Address already in use',
      'HINT:  Is another postmaster already running on port 5432? If not, wait a few seconds and retry.',
      'WARNING:  could not create listen socket for "127.0.0.1"',
      'FATAL:  could not create any TCP/IP sockets',
      'LOG:  database system is shut down',
      '',
    ].join('\n');
    expect(startFailureOutput(output)).toBe(
      'LOG: could not bind IPv4 address "127.0.0.1": Address already in use | HINT: Is another ' +
        'postmaster already running on port 5432? If not, wait a few seconds and retry. | ' +
        'WARNING: could not create listen socket for "127.0.0.1" | FATAL: could not create any ' +
        'TCP/IP sockets',
    );
  });

  it('keeps the routine lines when nothing else was said, and says when nothing was', () => {
    expect(startFailureOutput('LOG:  database system is shut down\n')).toBe(
      'LOG: database system is shut down',
    );
    expect(startFailureOutput('\n')).toBe('no output');
  });
});
