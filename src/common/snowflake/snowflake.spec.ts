import { decodeSnowflake, parseSnowflake, SNOWFLAKE_EPOCH, SnowflakeGenerator } from './snowflake';

describe('SnowflakeGenerator', () => {
  it('encodes time, worker id and sequence in the documented bits', () => {
    const ms = 1_700_000_000_123;
    const gen = new SnowflakeGenerator(517, () => ms);
    const first = gen.nextBigInt();
    const second = gen.nextBigInt();
    expect(first >> 22n).toBe(BigInt(ms) - SNOWFLAKE_EPOCH);
    expect((first >> 12n) & 0x3ffn).toBe(517n);
    expect(first & 0xfffn).toBe(0n);
    expect(second & 0xfffn).toBe(1n);
    expect(decodeSnowflake(first)).toEqual({ timestamp: new Date(ms), workerId: 517, sequence: 0 });
  });

  it('is strictly monotonic and unique over many ids', () => {
    const gen = new SnowflakeGenerator(1);
    let prev = -1n;
    const seen = new Set<bigint>();
    for (let i = 0; i < 50_000; i++) {
      const id = gen.nextBigInt();
      expect(id > prev).toBe(true);
      prev = id;
      seen.add(id);
    }
    expect(seen.size).toBe(50_000);
  });

  it('issues 4096 ids in one millisecond, then moves to the next millisecond', () => {
    let now = 1_700_000_000_000;
    const clock = jest.fn(() => now);
    const gen = new SnowflakeGenerator(0, clock);
    const ids = Array.from({ length: 4096 }, () => gen.nextBigInt());
    expect(new Set(ids.map((id) => id >> 22n)).size).toBe(1);
    expect(ids[4095] & 0xfffn).toBe(4095n);
    // The 4097th id waits for the clock to advance.
    clock.mockImplementation(() => {
      now += 1;
      return now;
    });
    const next = gen.nextBigInt();
    expect(next >> 22n).toBe((ids[0] >> 22n) + 1n);
    expect(next & 0xfffn).toBe(0n);
  });

  it('never goes backwards when the clock does', () => {
    let now = 1_700_000_000_500;
    const gen = new SnowflakeGenerator(3, () => now);
    const a = gen.nextBigInt();
    now -= 200;
    const b = gen.nextBigInt();
    expect(b > a).toBe(true);
  });

  it('serializes as a decimal string', () => {
    const gen = new SnowflakeGenerator(2, () => 1_600_000_000_000);
    const id = gen.next();
    expect(id).toMatch(/^\d+$/);
    expect(BigInt(id) >> 22n).toBe(1_600_000_000_000n - SNOWFLAKE_EPOCH);
  });

  it('rejects worker ids outside 10 bits', () => {
    expect(() => new SnowflakeGenerator(1024)).toThrow(RangeError);
    expect(() => new SnowflakeGenerator(-1)).toThrow(RangeError);
  });
});

describe('parseSnowflake', () => {
  it('accepts strings and safe integers', () => {
    expect(parseSnowflake('1234567890123456789')).toBe('1234567890123456789');
    expect(parseSnowflake(42)).toBe('42');
  });
  it('rejects everything else', () => {
    for (const bad of ['', 'abc', '-1', '1.5', '99999999999999999999', 2 ** 60, -3, null, {}]) {
      expect(parseSnowflake(bad)).toBeNull();
    }
  });
});
