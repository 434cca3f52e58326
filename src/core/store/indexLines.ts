// The lines of the disk store's index (plain Node): the snapshot and every journal line
// (catalog.ts) is `<crc32> <json>`, so that a torn or corrupt line (a killed process, a bad disk)
// fails its check and is skipped; and the journal's records, read back tolerantly (a record of
// an unexpected shape is skipped, not trusted).

/** A journal record: ["P", key, hash, size, stamp, time] | ["U", key, time] | ["D", key, hash] (catalog.ts's header). */
export type JournalRecord = ['P', string, string, number, number, number] | ['U', string, number] | ['D', string, string];

/** node:zlib, required on the first checksum: loading it costs ~2 ms that activation need not pay. */
let zlib: typeof import('node:zlib') | undefined;

/** The CRC-32 of a line's JSON, as 8 hex digits. */
export function crcOf(s: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  zlib ??= require('node:zlib') as typeof import('node:zlib');
  return zlib.crc32(s).toString(16).padStart(8, '0');
}

/** The JSON of a `<crc32> <json>` line when the CRC matches. */
export function checked(line: string): string | undefined {
  if (line.length < 10 || line[8] !== ' ') return undefined;
  const json = line.slice(9);
  return crcOf(json) === line.slice(0, 8) ? json : undefined;
}

export function parseRecord(line: string): JournalRecord | undefined {
  const json = checked(line);
  if (json === undefined) return undefined;
  let r: unknown;
  try {
    r = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!Array.isArray(r) || typeof r[1] !== 'string') return undefined;
  switch (r[0]) {
    case 'P':
      return r.length === 6 && isHash(r[2]) && isCount(r[3]) && typeof r[4] === 'number' && typeof r[5] === 'number' ? (r as JournalRecord) : undefined;
    case 'U':
      return r.length === 3 && typeof r[2] === 'number' ? (r as JournalRecord) : undefined;
    case 'D':
      return r.length === 3 && isHash(r[2]) ? (r as JournalRecord) : undefined;
    default:
      return undefined;
  }
}

export function isHash(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
}

export function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
