// The site editor's message protocol: what the extension (src/features/sites/siteEditor.ts) and the
// webview (src/features/sites/webview/main.ts) send each other, and what the webview keeps in its state
// across a reload. Plain code, no `vscode`, no Node built-ins: both sides import it.
//
// Each side checks what it receives. The extension trusts nothing from the webview
// (parseMessage, parseEditorState: field names, string values, lengths); the webview takes the
// extension's messages as data (inserted as text and input values, never as HTML).

import { SAVE_SITE_FIELDS, SITE_SECRET_FIELDS, type SaveSiteField, type ServerType } from '../../core/api/types';
import type { FieldSpec } from './formFields';
import { FORM_MODES, type FormMode, type FormValues, type PasswordEdited, type ValidationError } from './siteForm';

/** The message that (re)builds the form. */
export interface InitMessage {
  type: 'init';
  mode: FormMode;
  /** The site edited or duplicated ('' for a new site): with `mode`, what the panel is restored to after a reload. */
  siteId: string;
  title: string;
  /** Non-secret values; password fields are always ''. */
  values: FormValues;
  /** Whether the site has each stored password (edit: "(unchanged)"; duplicate: "(copied from original)"). */
  storedPasswords: PasswordEdited;
  serverTypes: { value: ServerType; label: string; connectionTitle: string; note: string }[];
  groups: { id: string; label: string }[];
  /** Per server type: the fields shown, in order, with their labels and validation rules. */
  specs: Record<string, FieldSpec[]>;
  /** Fields shown for a server type outside the list (a stored legacy value). */
  commonSpecs: FieldSpec[];
  /** Per server type: default values applied when the type changes. */
  defaults: Record<string, Partial<FormValues>>;
  limits: { maxValueLength: number };
  /** The script's own texts, translated by the extension (the webview has no `vscode.l10n`). */
  strings: EditorStrings;
  /** The server types Test Connection can reach (empty: no Test Connection button). */
  testTypes: string[];
}

/** One stage of a Test Connection as the form lists it (src/features/live/report.ts makes it; data, inserted as text). */
export interface TestStageRow {
  stage: string;
  label: string;
  ok: boolean;
  time: string;
  detail: string;
  warning?: string;
}

/** A Test Connection's outcome as the form shows it. */
export interface TestOutcome {
  ok: boolean;
  headline: string;
  rows: TestStageRow[];
  next?: string;
  serverSaid?: string;
  note: string;
  unreachable?: boolean;
}

/** Messages the extension posts to the webview. */
export type HostMessage =
  | InitMessage
  | { type: 'errors'; errors: ValidationError[] }
  | { type: 'saving' }
  | { type: 'saveFailed'; message: string }
  | { type: 'testStarted' }
  | { type: 'testStage'; row: TestStageRow }
  | { type: 'testResult'; outcome: TestOutcome };

/**
 * The fixed texts of the webview script. `{0}` in a text is filled in by the script: the
 * shortcut (intro), the value not in the list, the error message, the number of errors.
 */
export interface EditorStrings {
  intro: string;
  save: string;
  saving: string;
  cancel: string;
  savingStatus: string;
  passwordUnchanged: string;
  passwordWillBeRemoved: string;
  passwordCopied: string;
  passwordNotCopied: string;
  removePassword: string;
  doNotCopyPassword: string;
  choose: string;
  notInList: string;
  oneError: string;
  manyErrors: string;
  notSaved: string;
  testConnection: string;
  testing: string;
  cancelTest: string;
  testResults: string;
  testNext: string;
  testServerSaid: string;
}

/** Messages the webview sends (after checking, see parseMessage). */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'change'; values: Partial<FormValues>; passwordEdited: PasswordEdited }
  | { type: 'save'; values: FormValues; passwordEdited: PasswordEdited }
  | { type: 'cancel' }
  /** Test Connection with the values as typed (a password typed and not saved included). */
  | { type: 'test'; values: FormValues; passwordEdited: PasswordEdited }
  | { type: 'testCancel' };

/**
 * What the webview keeps with `setState` so that the form survives a reload of the window (the
 * panel serializer gets it back) or of the webview: which form it is and what the user typed —
 * never a password (see savedState).
 */
export interface EditorState {
  mode: FormMode;
  siteId: string;
  /** The form's values, password fields always ''. */
  values: FormValues;
  /** The stored passwords the user chose to remove (edit) or not to copy (duplicate). */
  cleared: PasswordEdited;
}

/** Longest string accepted in a message value (the form's own limits are lower). */
export const MAX_MESSAGE_VALUE_LENGTH = 8192;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const FIELD_SET: ReadonlySet<string> = new Set(SAVE_SITE_FIELDS);
const SECRET_SET: ReadonlySet<string> = new Set(SITE_SECRET_FIELDS);

/** The values without the passwords typed into them: '' in each password field. */
export function withoutSecrets<T extends Partial<FormValues>>(values: T): T {
  const out = { ...values };
  for (const f of SITE_SECRET_FIELDS) if (f in out) out[f] = '';
  return out;
}

function parseValues(v: unknown, complete: boolean): Partial<FormValues> | undefined {
  if (!isRecord(v)) return undefined;
  const out: Partial<FormValues> = {};
  for (const [k, val] of Object.entries(v)) {
    if (!FIELD_SET.has(k) || typeof val !== 'string' || val.length > MAX_MESSAGE_VALUE_LENGTH) return undefined;
    out[k as SaveSiteField] = val;
  }
  if (complete && SAVE_SITE_FIELDS.some((f) => out[f] === undefined)) return undefined;
  return out;
}

function parseEdited(v: unknown): PasswordEdited | undefined {
  if (!isRecord(v)) return undefined;
  if (Object.keys(v).some((k) => !SECRET_SET.has(k))) return undefined;
  if (typeof v.ftp_pass !== 'boolean' || typeof v.db_password !== 'boolean') return undefined;
  return { ftp_pass: v.ftp_pass, db_password: v.db_password };
}

/** Checks a message from the webview; undefined for anything malformed or unknown. */
export function parseMessage(m: unknown): WebviewMessage | undefined {
  if (!isRecord(m) || typeof m.type !== 'string') return undefined;
  switch (m.type) {
    case 'ready':
    case 'cancel':
    case 'testCancel':
      return { type: m.type };
    case 'change': {
      const values = parseValues(m.values, false);
      const passwordEdited = parseEdited(m.passwordEdited);
      return values && passwordEdited ? { type: 'change', values, passwordEdited } : undefined;
    }
    case 'save':
    case 'test': {
      const values = parseValues(m.values, true) as FormValues | undefined;
      const passwordEdited = parseEdited(m.passwordEdited);
      return values && passwordEdited ? { type: m.type, values, passwordEdited } : undefined;
    }
    default:
      return undefined;
  }
}

/** The webview's state to keep: the form, without any password typed into it. */
export function savedState(init: Pick<InitMessage, 'mode' | 'siteId'>, values: FormValues, cleared: PasswordEdited): EditorState {
  return { mode: init.mode, siteId: init.siteId, values: withoutSecrets(values), cleared: { ...cleared } };
}

/**
 * Checks a webview state handed back after a reload (it comes from the webview, like a
 * message); undefined for anything malformed. A password found in it is dropped.
 */
export function parseEditorState(s: unknown): EditorState | undefined {
  if (!isRecord(s) || !(FORM_MODES as readonly unknown[]).includes(s.mode) || typeof s.siteId !== 'string') return undefined;
  const mode = s.mode as FormMode;
  if ((mode === 'create') !== (s.siteId === '') || s.siteId.length > MAX_MESSAGE_VALUE_LENGTH) return undefined;
  const values = parseValues(s.values, true) as FormValues | undefined;
  const cleared = parseEdited(s.cleared);
  return values && cleared ? { mode, siteId: s.siteId, values: withoutSecrets(values), cleared } : undefined;
}
