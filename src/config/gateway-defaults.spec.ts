import { defaultMaxConnections } from './app.config';

const limits = (soft: number) =>
  `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                ${soft}                files\n`;

describe('the default cap on gateway connections', () => {
  it('stays well under the open-file limit, with room for HTTP, the database and files', () => {
    // The machine's 20,000 (the probe ran out of descriptors at a cap of 20,000).
    expect(defaultMaxConnections(limits(20_000))).toBe(16_000);
    expect(defaultMaxConnections(limits(1_024))).toBe(768);
    expect(defaultMaxConnections(limits(1_048_576))).toBe(20_000);
    expect(defaultMaxConnections(limits(300))).toBe(64);
    // Unknown (not Linux): as for 1,024.
    expect(defaultMaxConnections(null)).toBe(768);
  });
});
