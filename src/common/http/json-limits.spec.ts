import {
  MAX_DTO_JSON_ITEMS,
  MAX_JSON_DEPTH,
  quoteUnsafeIntegers,
  scanJsonText,
} from './json-limits';

const scan = (text: string, maxDepth = MAX_JSON_DEPTH, maxItems = Infinity) =>
  scanJsonText(Buffer.from(text, 'utf8'), { maxDepth, maxItems });
const countItems = (text: string) => {
  let limit = 0;
  while (scan(text, Infinity, limit) === 'too-many-items') limit += 1;
  return limit;
};
const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** The nesting depth of a parsed value, computed the obvious (recursive) way. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object') {
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  }
  return 0;
}

/** The smallest limit the scanner accepts `text` under (its idea of the depth). */
function scannedDepth(text: string): number {
  let limit = 0;
  while (scan(text, limit) === 'too-deep') limit += 1;
  return limit;
}

// Strings that look like structure, escapes and multi-byte characters: none of them may count.
const TRICKY_STRINGS = [
  '[[[[',
  '}}}]]]',
  '{"a":[',
  '"',
  '\\',
  '\\"[',
  'x\\\\"{',
  '😀 \u00e9 \u4e2d',
  '\u2028',
  '',
];

/** A deterministic pseudo-random JSON value (mulberry32), nested up to `depth`. */
function randomValue(next: () => number, depth: number): unknown {
  const r = next();
  if (depth === 0 || r < 0.3) {
    const leaves = [
      null,
      true,
      1.5e3,
      -0,
      TRICKY_STRINGS[Math.floor(next() * TRICKY_STRINGS.length)],
    ];
    return leaves[Math.floor(next() * leaves.length)];
  }
  const size = Math.floor(next() * 4);
  if (r < 0.65) return Array.from({ length: size }, () => randomValue(next, depth - 1));
  const obj: Record<string, unknown> = {};
  for (let k = 0; k < size; k++) {
    obj[`${TRICKY_STRINGS[k % TRICKY_STRINGS.length]}${k}`] = randomValue(next, depth - 1);
  }
  return obj;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('scanJsonText: depth', () => {
  it('caps nesting at 32 levels by default, for arrays and for objects', () => {
    expect(MAX_JSON_DEPTH).toBe(32);
    expect(scan(arrays(32))).toBeNull();
    expect(scan(arrays(33))).toBe('too-deep');
    expect(scan(objects(32))).toBeNull();
    expect(scan(objects(33))).toBe('too-deep');
    expect(scan(`{"a":[{"b":${arrays(29)}}]}`)).toBeNull();
    expect(scan(`{"a":[{"b":${arrays(30)}}]}`)).toBe('too-deep');
  });

  it('refuses 2000 levels without recursing', () => {
    expect(scan(arrays(2000))).toBe('too-deep');
    expect(scan(objects(2000))).toBe('too-deep');
    expect(scan('['.repeat(1_000_000))).toBe('too-deep');
  });

  it('counts depth, not the number of containers', () => {
    const wide = JSON.stringify({
      a: Array.from({ length: 1000 }, () => ({ b: [1, 2, { c: [] }] })),
    });
    expect(scan(wide, 6)).toBeNull();
    expect(scan(wide, 5)).toBe('too-deep');
  });

  it('ignores brackets inside strings and keys, escaped quotes included', () => {
    const text = JSON.stringify({ '[[[[[': '{{{{{{', s: '\\"[[[[[["', t: 'x\\', u: ['"]]]]'] });
    expect(scan(text, 2)).toBeNull();
    expect(scan(text, 1)).toBe('too-deep');
    expect(scan(`"${'['.repeat(100)}"`, 0)).toBeNull();
  });

  it('scans scalars and empty text as depth 0', () => {
    for (const text of ['', '1', 'null', '"x"', '  true  ']) expect(scan(text, 0)).toBeNull();
    expect(scan('[]', 0)).toBe('too-deep');
  });

  it('agrees with the parsed depth of random JSON', () => {
    const next = mulberry32(20261122);
    for (let k = 0; k < 300; k++) {
      const value = randomValue(next, 8);
      const text = JSON.stringify(value);
      expect({ text, depth: scannedDepth(text) }).toEqual({ text, depth: depthOf(value) });
    }
  });
});

describe('scanJsonText: items and escapes', () => {
  it('counts items as containers plus separators, outside strings only', () => {
    expect(countItems('1')).toBe(0);
    expect(countItems('[]')).toBe(1);
    expect(countItems('[1,2,3]')).toBe(3);
    expect(countItems('{"a":1,"b":[1,2],"c":{}}')).toBe(6);
    expect(countItems(JSON.stringify({ 'a,b,c': '[,{,],}' }))).toBe(1);
  });

  it(`caps items at ${MAX_DTO_JSON_ITEMS} when asked, wherever they are`, () => {
    expect(MAX_DTO_JSON_ITEMS).toBe(10_000);
    const body = (n: number) => JSON.stringify({ email: Array(n).fill('x') });
    // The object, the array and the n - 1 commas between its elements: n + 1 items.
    expect(scan(body(MAX_DTO_JSON_ITEMS - 1), MAX_JSON_DEPTH, MAX_DTO_JSON_ITEMS)).toBeNull();
    expect(scan(body(MAX_DTO_JSON_ITEMS), MAX_JSON_DEPTH, MAX_DTO_JSON_ITEMS)).toBe(
      'too-many-items',
    );
    expect(scan(JSON.stringify(Array(100_000).fill({})), MAX_JSON_DEPTH, MAX_DTO_JSON_ITEMS)).toBe(
      'too-many-items',
    );
    expect(scan(JSON.stringify(Array(100_000).fill({})))).toBeNull();
  });

  it('refuses unpaired surrogate escapes and accepts pairs and other escapes', () => {
    expect(scan('{"a":"\\ud800"}')).toBe('lone-surrogate');
    expect(scan('{"a":"\\uDC00x"}')).toBe('lone-surrogate');
    expect(scan('{"a":"x\\uD83Dy"}')).toBe('lone-surrogate');
    expect(scan('{"a":"\\ud83d\\u0041"}')).toBe('lone-surrogate');
    expect(scan('{"a":"\\ud83d\\ud83d"}')).toBe('lone-surrogate');
    expect(scan('{"\\udfff":1}')).toBe('lone-surrogate');
    expect(scan('"\\ud800')).toBe('lone-surrogate');
    expect(scan('{"a":"\\ud83d\\ude00"}')).toBeNull();
    expect(scan('{"a":"\\uD83D\\uDE00\\u00e9\\n\\\\ud800\\"\\u0000"}')).toBeNull();
    expect(scan(JSON.stringify({ a: '😀 \u00e9' }))).toBeNull();
  });

  it('leaves malformed text to JSON.parse', () => {
    for (const text of ['"abc', '"\\', '"\\u12', '"\\uzzzz"', ']]]][[', '{"a":"\\ud83d\\']) {
      expect(() => scan(text)).not.toThrow();
    }
    expect(scan('"\\uzzzz"')).toBeNull();
  });
});

describe('integers beyond 2^53 (snowflakes sent as JSON numbers)', () => {
  const longRuns = (text: string) => {
    const found = { longDigitRuns: false };
    scanJsonText(Buffer.from(text, 'utf8'), { maxDepth: 10, maxItems: 100 }, found);
    return found.longDigitRuns;
  };

  it('notices 16-digit runs outside strings only', () => {
    expect(longRuns('{"id": 1234567890123456789}')).toBe(true);
    expect(longRuns('[1, 2.1234567890123456]')).toBe(true);
    expect(longRuns('{"id": "1234567890123456789"}')).toBe(false);
    expect(longRuns('{"n": 123456789012345}')).toBe(false);
  });

  it('quotes exactly the unsafe integers, and nothing in strings', () => {
    const text =
      '{"a": 1234567890123456789, "b": [-9007199254740993, 9007199254740991], ' +
      '"c": "9999999999999999999", "d": 1.23456789012345678, "e": 12345678901234567e2, ' +
      '"f\\"": 99999999999999999999}';
    expect(JSON.parse(quoteUnsafeIntegers(text))).toEqual({
      a: '1234567890123456789',
      b: ['-9007199254740993', 9007199254740991],
      c: '9999999999999999999',
      d: Number('1.23456789012345678'),
      e: Number('12345678901234567e2'),
      'f"': '99999999999999999999',
    });
  });

  it('leaves text without unsafe integers as it is', () => {
    const text = '{"a": 1, "b": "12345678901234567890"}';
    expect(quoteUnsafeIntegers(text)).toBe(text);
  });
});
