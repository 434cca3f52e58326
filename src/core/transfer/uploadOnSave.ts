// The site field `upload_on_save` (issue 34 §5): what its values mean. The service's API lists the
// field without describing it, and its own web front end (adamjimenez/shiftedit app/site.js) has
// no control for it; the service stores strings. We read it as the extension reads the site's
// other flags (`pasv`, `encryption`: src/features/sites/siteForm.ts normalizeFlag), tolerant of
// the spellings a person or another client may have stored, and write '1' or '0' only.
// docs/decisions.md has the table; test/unit/transfer.queue.test.ts tests every row.

export interface UploadOnSave {
  on: boolean;
  /** The value as stored (trimmed). */
  raw: string;
  /** Set when the value is not one of the known spellings (it is then read as off). */
  note?: string;
}

const ON = new Set(['1', 'true', 'yes', 'on']);
const OFF = new Set(['', '0', 'false', 'no', 'off']);

/** Reads a site's `upload_on_save`: '1', 'true', 'yes', 'on' (any case, spaces around) are on; '', '0', 'false', 'no', 'off' and a missing field are off; anything else is off, with a note. */
export function uploadOnSave(site: { upload_on_save?: string | null }): UploadOnSave {
  const raw = typeof site.upload_on_save === 'string' ? site.upload_on_save.trim() : '';
  const v = raw.toLowerCase();
  if (ON.has(v)) return { on: true, raw };
  if (OFF.has(v)) return { on: false, raw };
  return { on: false, raw, note: `upload_on_save is "${raw.slice(0, 40)}", which is not a known value: read as off (the extension writes "1" or "0").` };
}

/** The value the extension writes for on / off. */
export function uploadOnSaveValue(on: boolean): '1' | '0' {
  return on ? '1' : '0';
}
