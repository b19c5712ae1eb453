import type { DataSource } from 'typeorm';

/**
 * The encodings a secret could be stored in by mistake: the text itself, its UTF-8 bytes as hex
 * (bytea renders as `\x…`) and base64, and — for base64url secrets (`raw: true`) — the decoded
 * bytes as hex and base64. All lowercase: the scan compares lowercased column text.
 */
export function secretNeedles(texts: string[], base64urlSecrets: string[] = []): Set<string> {
  const needles = new Set<string>();
  for (const s of [...texts, ...base64urlSecrets]) {
    const utf8 = Buffer.from(s, 'utf8');
    needles.add(s.toLowerCase());
    needles.add(utf8.toString('hex'));
    needles.add(utf8.toString('base64').toLowerCase());
  }
  for (const s of base64urlSecrets) {
    const raw = Buffer.from(s, 'base64url');
    needles.add(raw.toString('hex'));
    needles.add(raw.toString('base64').replace(/=+$/, '').toLowerCase());
  }
  return needles;
}

/** `table.column` of every text-like column (text, varchar, bytea, json, arrays) holding a needle. */
export async function findSecretsAtRest(db: DataSource, needles: Set<string>): Promise<string[]> {
  const columns = await db.query<Array<{ table_name: string; column_name: string }>>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public'
        AND data_type IN ('text', 'character varying', 'bytea', 'jsonb', 'json', 'ARRAY')`,
  );
  if (columns.length < 10) throw new Error(`only ${columns.length} columns to scan`);
  const hits = new Set<string>();
  for (const { table_name, column_name } of columns) {
    const rows = await db.query<Array<{ v: string | null }>>(
      `SELECT lower("${column_name}"::text) AS v FROM "${table_name}" WHERE "${column_name}" IS NOT NULL`,
    );
    for (const { v } of rows) {
      for (const n of needles) if (v?.includes(n)) hits.add(`${table_name}.${column_name}`);
    }
  }
  return [...hits];
}
