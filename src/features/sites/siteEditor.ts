// The site editor: a webview form to create, edit or duplicate a site. The webview's script is
// src/features/sites/webview/main.ts, bundled into dist/siteEditor.js; both sides speak protocol.ts and
// validate with the rules of siteForm.ts (the fields' specs: formFields.ts).
//
// Security: the webview gets a strict CSP with a nonce, loads only its script (dist/) and style
// (media/), and never receives a stored password (only whether one exists). Everything the
// service supplied is sent as data through postMessage and inserted by the script as text, never
// as HTML. Messages from the webview, and the state it hands back after a reload, are checked
// (type, shape, field names, string values, lengths) before use; validation runs again here,
// authoritatively.
//
// After a window reload VS Code gives the panel back to registerSiteEditorSerializer
// (./editorLoad.ts) with the state the webview kept (protocol.ts EditorState: the form without any
// typed password). In the extension's build this file, ./siteForm.ts, ./formFields.ts,
// ./formTexts.ts and ./protocol.ts are a chunk of their own, imported when a form first opens.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { translate } from '../../workbench/l10n';
import { message, plain, showError, showWarning } from '../../workbench/messages';
import { background } from '../../core/util/background';
import { DisposableStore } from '../../core/util/disposable';
import { SAVE_SITE_FIELDS, SERVER_TYPES, SITE_SECRET_FIELDS, type Site, type SiteFields } from '../../core/api/types';
import { SITE_EDITOR_VIEW_TYPE } from './editorType';
import { MAX_MESSAGE_VALUE_LENGTH, parseEditorState, parseMessage, withoutSecrets, type EditorState, type EditorStrings, type HostMessage, type InitMessage, type TestOutcome, type TestStageRow } from './protocol';
import { COMMON_FIELDS, FIELD_GROUPS, GROUP_LABELS, SERVER_TYPE_INFO, fieldSpecs, type FieldSpec } from './formFields';
import { localizeSpec, localizeTypeInfo } from './formTexts';
import {
  defaultsByType,
  formToFields,
  initialValues,
  storedPasswords,
  updateFields,
  validate,
  withCopiedSecrets,
  type FormMode,
  type FormValues,
  type PasswordEdited,
} from './siteForm';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export interface SiteEditorRequest {
  mode: FormMode;
  /** For edit/duplicate. Contains ftp_pass/db_password: these are NEVER sent into the webview. */
  site?: Site;
  /** Saves the site; throws an Error whose message is shown in the form. */
  save(fields: SiteFields): Promise<{ siteId: string }>;
  /**
   * Asks whether unsaved changes may be discarded (Cancel). Defaults to a modal warning;
   * tests pass their own answer.
   */
  confirmDiscard?(title: string): Thenable<boolean>;
  /** After a window reload: the panel VS Code restored and the state its webview kept. */
  restore?: { panel: vscode.WebviewPanel; state: EditorState };
  /** Test Connection of the values as typed (the live feature, loaded on first use); absent: no button. */
  test?: FormTester;
}

/** What the form's Test Connection runs (src/features/live/testCommand.ts formTest). */
export type FormTester = (
  site: Partial<Site> & { id: string; name: string },
  password: string | undefined,
  signal: AbortSignal,
  onStage: (row: TestStageRow) => void,
) => Promise<TestOutcome>;

/** The server types Test Connection can reach (src/features/live/names.ts LIVE_TYPES). */
const TEST_TYPES = ['FTP', 'SFTP', 'WebDAV', 'AmazonS3'];

export function editorStrings(): EditorStrings {
  // '{0}' passed as the argument keeps the placeholder for the script.
  return {
    intro: vscode.l10n.t('Fields marked * are required. Press {0} to save.', '{0}'),
    save: vscode.l10n.t('Save'),
    saving: vscode.l10n.t('Saving…'),
    cancel: vscode.l10n.t('Cancel'),
    savingStatus: vscode.l10n.t('Saving the site…'),
    passwordUnchanged: vscode.l10n.t('(unchanged)'),
    passwordWillBeRemoved: vscode.l10n.t('(will be removed)'),
    passwordCopied: vscode.l10n.t('(copied from original)'),
    passwordNotCopied: vscode.l10n.t('(not copied)'),
    removePassword: vscode.l10n.t('Remove the saved password'),
    doNotCopyPassword: vscode.l10n.t('Do not copy the original’s password'),
    choose: vscode.l10n.t('Choose…'),
    notInList: vscode.l10n.t('{0} (not in the list)', '{0}'),
    oneError: vscode.l10n.t('One field needs attention: {0}', '{0}'),
    manyErrors: vscode.l10n.t('{0} fields need attention. Correct them and save again.', '{0}'),
    notSaved: vscode.l10n.t('The site was not saved. {0}', '{0}'),
    testConnection: vscode.l10n.t('Test Connection'),
    testing: vscode.l10n.t('Testing the connection…'),
    cancelTest: vscode.l10n.t('Cancel Test'),
    testResults: vscode.l10n.t('Test Connection'),
    testNext: vscode.l10n.t('Next step: {0}', '{0}'),
    testServerSaid: vscode.l10n.t('The server said: {0}', '{0}'),
  };
}

/**
 * A text of the site form (formFields.ts: labels, help, rule messages…) in the display language.
 * Besides the translator of src/workbench/l10n.ts, the one call of `vscode.l10n.t` with a computed message:
 * formTexts.ts's formTexts() lists every such text for the bundle (scripts/l10n-bundle.mjs).
 */
function formText(text: string): string {
  return text ? vscode.l10n.t(text) : text;
}

export interface SiteEditorHandle {
  readonly panel: vscode.WebviewPanel;
  /** Resolves with the saved site's id, or undefined when the panel closes without saving. */
  readonly done: Promise<{ siteId: string } | undefined>;
  /** Test hook: handles `message` as if the webview had sent it; resolves when handled (a save included). */
  simulate(message: unknown): Promise<void>;
  /** The last message posted to the webview. */
  readonly lastPosted: HostMessage | undefined;
  /** Every message posted to the webview, oldest first. */
  readonly posted: readonly HostMessage[];
  /** The init message the webview gets when it is (re)loaded. */
  readonly initialState: InitMessage;
}

const openEditors = new Map<string, SiteEditorHandle>();

function editorTitle(mode: FormMode, site: Site | undefined): string {
  if (mode === 'edit') return vscode.l10n.t('Edit site: {0}', site?.name ?? '');
  if (mode === 'duplicate') return vscode.l10n.t('Duplicate: {0}', site?.name ?? '');
  return vscode.l10n.t('New site');
}

function buildInit(mode: FormMode, site: Site | undefined, title: string, values: FormValues, canTest: boolean): InitMessage {
  const specs: Record<string, FieldSpec[]> = {};
  for (const t of SERVER_TYPES) specs[t] = fieldSpecs(t).map((s) => localizeSpec(s, formText));
  return {
    type: 'init',
    mode,
    siteId: mode !== 'create' && site ? site.id : '',
    title,
    values: withoutSecrets(values),
    storedPasswords: mode === 'create' ? { ftp_pass: false, db_password: false } : storedPasswords(site),
    serverTypes: SERVER_TYPES.map((t) => ({ value: t, ...localizeTypeInfo(SERVER_TYPE_INFO[t], formText) })),
    groups: FIELD_GROUPS.map((g) => ({ id: g, label: formText(GROUP_LABELS[g]) })),
    specs,
    commonSpecs: fieldSpecs('')
      .filter((s) => COMMON_FIELDS.includes(s.field))
      .map((s) => localizeSpec(s, formText)),
    defaults: defaultsByType(),
    limits: { maxValueLength: MAX_MESSAGE_VALUE_LENGTH },
    strings: editorStrings(),
    testTypes: canTest ? TEST_TYPES : [],
  };
}

function nonce(): string {
  return randomBytes(18).toString('base64');
}

/** A translated text inside the page's HTML (a translation is not markup). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the webview may load: its script (dist/siteEditor.js) and its style (media/siteEditor.css). */
function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')] };
}

function html(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'siteEditor.js')).toString();
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'siteEditor.css')).toString();
  const n = nonce();
  const lang = vscode.env.language.replace(/[^A-Za-z0-9-]/g, '') || 'en';
  // Nothing from the service is interpolated here: the state arrives by postMessage.
  return `<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${n}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>${escapeHtml(vscode.l10n.t('Site editor'))}</title>
</head>
<body>
<main id="app" aria-busy="true"><p class="loading">${escapeHtml(vscode.l10n.t('Loading…'))}</p></main>
<script nonce="${n}" src="${script}"></script>
</body>
</html>`;
}

/**
 * Opens the editor (or, with `req.restore`, takes over a panel restored after a reload); for
 * edit, an editor already open for the same site is revealed instead.
 */
export function openSiteEditor(extensionUri: vscode.Uri, req: SiteEditorRequest): SiteEditorHandle {
  const { mode, site, restore } = req;
  const key = mode === 'edit' && site ? `edit:${site.id}` : undefined;
  const existing = key ? openEditors.get(key) : undefined;
  if (existing) {
    restore?.panel.dispose();
    existing.panel.reveal();
    return existing;
  }

  const title = editorTitle(mode, site);
  const panel = restore?.panel ?? vscode.window.createWebviewPanel(SITE_EDITOR_VIEW_TYPE, title, vscode.ViewColumn.Active, { ...webviewOptions(extensionUri), retainContextWhenHidden: true });
  if (restore) {
    panel.title = title;
    panel.webview.options = webviewOptions(extensionUri);
  }
  panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'activity.svg');

  const initial = initialValues(mode, site, translate);
  // Restored: the form as the user left it (never with a typed password: the state has none).
  let current: FormValues = restore ? withoutSecrets(restore.state.values) : { ...initial };
  let edited: PasswordEdited = { ftp_pass: false, db_password: false };
  let saving = false;
  /** The panel's handlers; disposed with the panel (then nothing is posted or handled any more). */
  const handlers = new DisposableStore();
  const posted: HostMessage[] = [];
  const initMessage = buildInit(mode, site, title, initial, !!req.test);
  /** The Test Connection under way (one at a time; closing the form cancels it). */
  let testing: AbortController | undefined;

  let resolveDone!: (r: { siteId: string } | undefined) => void;
  const done = new Promise<{ siteId: string } | undefined>((resolve) => (resolveDone = resolve));

  const post = (m: HostMessage): void => {
    posted.push(m);
    // A webview closed meanwhile refuses the message: nothing is lost, the form is gone.
    if (!handlers.isDisposed) panel.webview.postMessage(m).then(undefined, () => undefined);
  };

  const isDirty = (): boolean =>
    edited.ftp_pass || edited.db_password || SAVE_SITE_FIELDS.some((f) => !(SITE_SECRET_FIELDS as readonly string[]).includes(f) && current[f] !== initial[f]);

  /** The host keeps the form's values without typed passwords (they are only needed at save time). */
  const remember = (values: Partial<FormValues>): void => {
    current = withoutSecrets({ ...current, ...values });
  };

  const confirmDiscard =
    req.confirmDiscard ??
    (async (name: string): Promise<boolean> => {
      const discard = vscode.l10n.t('Discard');
      const choice = await showWarning(
        message('Discard your changes to “{0}”?', plain(name)),
        { modal: true, detail: message('The changes you made in this form have not been saved.') },
        discard,
      );
      return choice === discard;
    });

  const save = async (values: FormValues, passwordEdited: PasswordEdited): Promise<void> => {
    if (saving) return;
    remember(values);
    edited = passwordEdited;
    const errors = validate(values).map((e) => ({ ...e, message: formText(e.message) }));
    if (errors.length > 0) {
      post({ type: 'errors', errors });
      return;
    }
    const serverType = values.server_type;
    let fields = formToFields(values, { mode, passwordEdited, serverType, t: translate, ...(site ? { originalName: site.name } : {}) });
    // An edit sends every field, the ones the user did not change as they are stored.
    if (mode === 'edit' && site) fields = updateFields(site, values, initial, passwordEdited, translate);
    if (mode === 'duplicate' && site) fields = withCopiedSecrets(fields, site, passwordEdited, serverType);
    saving = true;
    post({ type: 'saving' });
    let result: { siteId: string };
    try {
      result = await req.save(fields);
    } catch (e) {
      saving = false;
      const text = e instanceof Error && e.message ? e.message : vscode.l10n.t('The site could not be saved.');
      if (handlers.isDisposed) {
        // The panel was closed while saving: nowhere left to show the message in the form.
        resolveDone(undefined);
        background('Showing a failed save', showError(message('Could not save “{0}”: {1}', plain(values.name.trim()), plain(text))));
      } else {
        post({ type: 'saveFailed', message: text });
      }
      return;
    }
    saving = false;
    resolveDone({ siteId: result.siteId });
    if (!handlers.isDisposed) panel.dispose();
  };

  /**
   * Test Connection of the values as typed. The password: the one typed (not saved), else the
   * site's stored one unless the form removes it; the host has it, the webview never gets it.
   */
  const test = async (values: FormValues, passwordEdited: PasswordEdited): Promise<void> => {
    if (!req.test) return;
    testing?.abort();
    const ac = (testing = new AbortController());
    remember(values);
    const typed = passwordEdited.ftp_pass ? values.ftp_pass : undefined;
    const stored = !passwordEdited.ftp_pass && site && mode !== 'create' ? site.ftp_pass : undefined;
    const fields: Partial<Site> & { id: string; name: string } = {
      id: mode === 'edit' && site ? site.id : '',
      name: values.name.trim() || values.domain.trim(),
      server_type: values.server_type as Site['server_type'],
      domain: values.domain,
      logon_type: values.logon_type,
      ftp_user: values.ftp_user,
      ftp_pass: stored ?? '',
      dir: values.dir,
      port: values.port,
      pasv: values.pasv,
      encryption: values.encryption,
      encoding: values.encoding,
      ...(site?.timeout !== undefined ? { timeout: site.timeout } : {}),
    };
    post({ type: 'testStarted' });
    let outcome: TestOutcome;
    try {
      outcome = await req.test(fields, typed && typed !== '' ? typed : undefined, ac.signal, (row) => {
        if (testing === ac) post({ type: 'testStage', row });
      });
    } catch (e) {
      outcome = { ok: false, headline: e instanceof Error ? e.message : String(e), rows: [], note: '' };
    }
    if (testing !== ac) return;
    testing = undefined;
    post({ type: 'testResult', outcome });
  };

  const handle = async (raw: unknown): Promise<void> => {
    if (handlers.isDisposed) return;
    const m = parseMessage(raw);
    if (!m) return;
    switch (m.type) {
      case 'ready': {
        // A (re)loaded webview starts from the current values; typed passwords are not sent back.
        edited = { ftp_pass: false, db_password: false };
        post({ ...initMessage, values: withoutSecrets(current) });
        break;
      }
      case 'change':
        remember(m.values);
        edited = m.passwordEdited;
        break;
      case 'save':
        await save(m.values, m.passwordEdited);
        break;
      case 'test':
        await test(m.values, m.passwordEdited);
        break;
      case 'testCancel':
        testing?.abort();
        break;
      case 'cancel':
        if (saving) return;
        if (!isDirty() || (await confirmDiscard(title))) panel.dispose();
        break;
    }
  };

  panel.webview.html = html(panel.webview, extensionUri);
  handlers.add(
    panel.webview.onDidReceiveMessage((m: unknown) => {
      handle(m).catch(() => undefined);
    }),
  );
  handlers.add(
    panel.onDidDispose(() => {
      testing?.abort();
      handlers.dispose();
      if (key && openEditors.get(key) === editorHandle) openEditors.delete(key);
      // While a save is under way, `done` waits for its outcome (the site may well be saved).
      if (!saving) resolveDone(undefined);
    }),
  );

  const editorHandle: SiteEditorHandle = {
    panel,
    done,
    simulate: handle,
    get lastPosted() {
      return posted[posted.length - 1];
    },
    posted,
    initialState: initMessage,
  };
  if (key) openEditors.set(key, editorHandle);
  return editorHandle;
}

/** The serializer (./editorLoad.ts) checks a restored panel's state with it. */
export { parseEditorState };
