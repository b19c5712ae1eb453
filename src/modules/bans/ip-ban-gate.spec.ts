import { Logger } from '@nestjs/common';
import type { DatabaseOutageTracker } from '../../common/lifecycle/database-outage.tracker';
import type { DatabaseNotifications, NotificationListener } from '../../database/notifications';
import type { BanChecks } from './ban-checks.service';
import { BANS_CHANNEL, IpBanGate } from './ip-ban-gate';

interface Outcome {
  passed: boolean;
  status?: number;
  body?: unknown;
}

describe('IpBanGate', () => {
  let banned: Set<string>;
  let queries: string[];
  let failWith: Error | null;
  let listener: NotificationListener;
  let outage: { down: boolean; failed: jest.Mock };
  let gate: IpBanGate;

  beforeEach(() => {
    banned = new Set();
    queries = [];
    failWith = null;
    outage = { down: false, failed: jest.fn() };
    const checks = {
      isIpBanned: (address: string) => {
        queries.push(address);
        return failWith ? Promise.reject(failWith) : Promise.resolve(banned.has(address));
      },
    } as unknown as BanChecks;
    const notifications = {
      listen: (channel: string, l: NotificationListener) => {
        expect(channel).toBe(BANS_CHANNEL);
        listener = l;
      },
    } as unknown as DatabaseNotifications;
    gate = new IpBanGate(checks, notifications, outage as unknown as DatabaseOutageTracker);
    gate.onModuleInit();
    listener.onListening(true);
  });

  const request = (ip: string | undefined): Promise<Outcome> =>
    new Promise((resolve) =>
      gate.check(ip, (refusal) =>
        resolve(
          refusal
            ? { passed: false, status: refusal.status, body: refusal.toBody() }
            : { passed: true },
        ),
      ),
    );

  it('refuses a banned address with 403 IP_BANNED and lets others through', async () => {
    banned.add('203.0.113.7');
    expect(await request('203.0.113.7')).toEqual({
      passed: false,
      status: 403,
      body: { code: 'IP_BANNED', message: expect.any(String) },
    });
    // IPv4-mapped IPv6 is the same client.
    expect((await request('::ffff:203.0.113.7')).status).toBe(403);
    expect(await request('203.0.113.8')).toEqual({ passed: true });
    expect(await request(undefined)).toEqual({ passed: true });
  });

  it('caches decisions until a change is announced', async () => {
    await request('198.51.100.1');
    await request('198.51.100.1');
    expect(queries).toEqual(['198.51.100.1']);
    banned.add('198.51.100.1');
    expect((await request('198.51.100.1')).passed).toBe(true); // still the cached decision
    listener.onNotification('ip');
    expect((await request('198.51.100.1')).status).toBe(403);
  });

  it('serves nothing from memory while notifications are down', async () => {
    await request('198.51.100.2');
    listener.onListening(false);
    await request('198.51.100.2');
    await request('198.51.100.2');
    expect(queries).toHaveLength(3);
  });

  it('shares one lookup between concurrent first requests from one address', async () => {
    const outcomes = await Promise.all([1, 2, 3].map(() => request('198.51.100.3')));
    expect(outcomes.every((o) => o.passed)).toBe(true);
    expect(queries).toEqual(['198.51.100.3']);
  });

  it('fails open while PostgreSQL is unreachable, and reports it to the outage tracker', async () => {
    failWith = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(await request('198.51.100.4')).toEqual({ passed: true });
    expect(outage.failed).toHaveBeenCalledTimes(1);
    // During the outage no lookup is attempted.
    outage.down = true;
    expect(await request('198.51.100.5')).toEqual({ passed: true });
    expect(queries).toEqual(['198.51.100.4']);
  });

  it('answers 500 for any other failure of the check', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    failWith = new Error('relation "ip_bans" does not exist');
    expect(await request('198.51.100.6')).toEqual({
      passed: false,
      status: 500,
      body: { code: 'INTERNAL_SERVER_ERROR', message: expect.any(String) },
    });
    expect(logged).toHaveBeenCalledTimes(1);
    logged.mockRestore();
  });
});
