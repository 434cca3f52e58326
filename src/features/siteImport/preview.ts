// The import's preview as data (no `vscode`: the benchmark runs it in plain Node): each imported
// site's Save Site fields, checked against the site form's own rules, matched with the sites
// already on the service and with the rows before it.
import type { ServerType, Site, SiteFields } from '../../core/api/types';
import { siteKey } from '../../core/siteImport/match';
import { FORMAT_LABELS, type ImportedSite, type ImportResult } from '../../core/siteImport/types';
import { fieldSpecs, isServerType, type FieldSpec } from '../sites/formFields';
import { defaultValues, formToFields, validateWith, type FormValues } from '../sites/siteForm';

/** One row of the preview. */
export interface PreviewRow {
  site: ImportedSite;
  /** The Save Site fields it is saved with (password included when one came with it). */
  fields: SiteFields;
  /** The site on the service that is the same one (type, host, port, user, directory). */
  existing?: Site;
  /** Another row of the import that is the same site (the first one wins). */
  repeats?: string;
  /** Why it cannot be imported (the form's rules), when it cannot. */
  invalid?: string;
  /** The file it came from. */
  file: string;
}

/** What an import of files gives the preview: its rows, the entries left out, the formats. */
export interface Preview {
  rows: PreviewRow[];
  leftOut: { name: string; reason: string; file: string }[];
  formats: string[];
  files: string[];
}

// The form's fields and defaults per server type, made once (fieldSpecs copies its specs on every call).
const byType = new Map<ServerType, { specs: FieldSpec[]; defaults: FormValues }>();
function typeInfo(type: ServerType): { specs: FieldSpec[]; defaults: FormValues } {
  let info = byType.get(type);
  if (!info) byType.set(type, (info = { specs: fieldSpecs(type), defaults: defaultValues(type) }));
  return info;
}

/** The form values of an imported site: the type's defaults, then what the file gave. */
export function formValues(site: ImportedSite): FormValues {
  const v = { ...typeInfo(isServerType(site.fields.server_type) ? site.fields.server_type : 'FTP').defaults };
  for (const [k, val] of Object.entries(site.fields)) if (k in v && typeof val === 'string') (v as Record<string, string>)[k] = val;
  return v;
}

/** The Save Site fields of an imported site (as a new site from the form), with its upload_on_save. */
export function saveFields(site: ImportedSite, values: FormValues = formValues(site)): SiteFields {
  const fields = formToFields(values, { mode: 'create', passwordEdited: { ftp_pass: site.passwordIncluded, db_password: false } });
  if (site.fields.upload_on_save) fields.upload_on_save = site.fields.upload_on_save === '1' ? 1 : 0;
  return fields;
}

/** The first rule of the site form the imported site breaks, in its words; undefined when none. */
export function formProblem(site: ImportedSite, values: FormValues = formValues(site)): string | undefined {
  return validateWith(typeInfo(isServerType(site.fields.server_type) ? site.fields.server_type : 'FTP').specs, values)[0]?.message;
}

/** Rows for the preview: the form's rules, the sites already on the service, repeats within the import. */
export function previewRows(results: { file: string; result: ImportResult }[], existing: readonly Site[]): Preview {
  const rows: PreviewRow[] = [];
  const leftOut: Preview['leftOut'] = [];
  // One key per site (siteKey), so that 500 rows against hundreds of sites stay linear.
  const onService = new Map<string, Site>();
  for (const s of existing) if (!onService.has(siteKey(s))) onService.set(siteKey(s), s);
  const earlier = new Map<string, string>();
  for (const { file, result } of results) {
    for (const l of result.leftOut) leftOut.push({ name: l.name || l.source, reason: l.reason, file });
    for (const site of result.sites) {
      const values = formValues(site);
      const row: PreviewRow = { site, fields: saveFields(site, values), file };
      const key = siteKey(site.fields);
      const problem = formProblem(site, values);
      if (problem) row.invalid = problem;
      const on = onService.get(key);
      if (on) row.existing = on;
      else if (!row.invalid && earlier.has(key)) row.repeats = earlier.get(key)!;
      if (!row.invalid && !earlier.has(key)) earlier.set(key, site.fields.name);
      rows.push(row);
    }
  }
  return { rows, leftOut, formats: [...new Set(results.map((r) => FORMAT_LABELS[r.result.format]))], files: results.map((r) => r.file) };
}

/** Whether a row is ticked when the preview opens. */
export function tickedAtFirst(r: PreviewRow): boolean {
  return !r.invalid && !r.existing && !r.repeats;
}

