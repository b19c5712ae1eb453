import { COLORS, SLACK_PRESET_COLORS } from './colors';

describe('COLORS', () => {
  it('holds 24-bit integers only', () => {
    for (const [name, value] of Object.entries(COLORS)) {
      expect({ name, ok: Number.isInteger(value) && value >= 0 && value <= 0xffffff }).toEqual({
        name,
        ok: true,
      });
    }
  });

  it("uses Slack's preset values", () => {
    expect(SLACK_PRESET_COLORS).toEqual({ good: 0x2eb886, warning: 0xdaa038, danger: 0xa30200 });
  });
});
