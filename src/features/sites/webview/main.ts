// The site editor's webview script, bundled for the browser into dist/siteEditor.js (esbuild.mjs):
// no framework, no `vscode`, no Node built-ins, no inline code (the CSP allows only this file).
// The form is built with DOM APIs from the `init` message of the extension (src/features/sites/siteEditor.ts);
// every string that came from the service is inserted with textContent or as an input's value,
// never as HTML. The field rules are siteForm.ts's own checkField (on formFields.ts's specs), the messages protocol.ts's
// types; the extension validates again on save and is authoritative.
//
// What the user typed survives a reload (of the webview, or of the window with the panel
// serializer): the form is kept with setState after every change — without the passwords typed
// into it, which are never persisted (protocol.ts savedState).

import { SITE_SECRET_FIELDS, type SaveSiteField, type SiteSecretField } from '../../../core/api/types';
import { parseEditorState, savedState, type EditorState, type EditorStrings, type HostMessage, type InitMessage, type TestOutcome, type TestStageRow, type WebviewMessage } from '../protocol';
import type { FieldSpec } from '../formFields';
import { checkField, validateWith, type FormValues, type PasswordEdited, type ValidationError } from '../siteForm';

/** What VS Code gives the webview (acquireVsCodeApi, once). */
interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: EditorState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const isMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || '');
const isSecret = (f: string): f is SiteSecretField => (SITE_SECRET_FIELDS as readonly string[]).includes(f);

let init: InitMessage | undefined;
let values = {} as FormValues;
/** Passwords the user chose to remove (edit) or not to copy (duplicate). */
let cleared: PasswordEdited = { ftp_pass: false, db_password: false };
/** field -> error message */
let errors: Partial<Record<SaveSiteField, string>> = {};
let saving = false;

let fieldsRoot: HTMLElement | null = null;
let banner: HTMLElement | null = null;
let saveButton: HTMLButtonElement | null = null;
let cancelButton: HTMLButtonElement | null = null;
let status: HTMLElement | null = null;
let testButton: HTMLButtonElement | null = null;
let testSection: HTMLElement | null = null;
let testing = false;

// ---- helpers ----

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, string>, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (attrs) for (const k of Object.keys(attrs)) node.setAttribute(k, attrs[k]!);
  if (text !== undefined) node.textContent = text;
  return node;
}

function specsFor(type: string): FieldSpec[] {
  const s = init ? (Object.prototype.hasOwnProperty.call(init.specs, type) ? init.specs[type] : undefined) : undefined;
  return Array.isArray(s) ? s : (init?.commonSpecs ?? []);
}

function typeInfo(type: string): InitMessage['serverTypes'][number] | undefined {
  return init?.serverTypes.find((t) => t.value === type);
}

function specOf(field: SaveSiteField): FieldSpec | undefined {
  return specsFor(values.server_type).find((s) => s.field === field);
}

function passwordEdited(): PasswordEdited {
  return { ftp_pass: values.ftp_pass !== '' || cleared.ftp_pass, db_password: values.db_password !== '' || cleared.db_password };
}

function nonSecretValues(): Partial<FormValues> {
  const out: Partial<FormValues> = {};
  for (const k of Object.keys(values) as SaveSiteField[]) if (!isSecret(k)) out[k] = values[k];
  return out;
}

/** A fixed text of this script, as the extension translated it (`init.strings`), with `{0}` filled in. */
function uiText(key: keyof EditorStrings, arg?: string | number): string {
  const s = init && typeof init.strings[key] === 'string' ? init.strings[key] : '';
  return arg === undefined ? s : s.replace('{0}', () => String(arg));
}

/** Keeps the form for a reload (never a password) and tells the extension what changed. */
function notifyChange(): void {
  remember();
  vscode.postMessage({ type: 'change', values: nonSecretValues(), passwordEdited: passwordEdited() });
}

function remember(): void {
  if (init) vscode.setState(savedState(init, values, cleared));
}

function passwordPlaceholder(field: SiteSecretField): string {
  if (!init?.storedPasswords[field]) return '';
  if (init.mode === 'edit') return cleared[field] ? uiText('passwordWillBeRemoved') : uiText('passwordUnchanged');
  if (init.mode === 'duplicate') return cleared[field] ? uiText('passwordNotCopied') : uiText('passwordCopied');
  return '';
}

// ---- building the form ----

function buildSkeleton(form: InitMessage): void {
  const app = document.getElementById('app');
  if (!app) return;
  app.replaceChildren();
  app.removeAttribute('aria-busy');

  app.appendChild(el('h1', { id: 'title' }, form.title));
  app.appendChild(el('p', { class: 'intro' }, uiText('intro', isMac ? '⌘+Enter' : 'Ctrl+Enter')));

  banner = el('div', { id: 'banner', class: 'banner', role: 'alert' });
  banner.hidden = true;
  app.appendChild(banner);

  const formEl = el('form', { id: 'form', novalidate: '' });
  formEl.addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  fieldsRoot = el('div', { id: 'fields' });
  formEl.appendChild(fieldsRoot);

  const actions = el('div', { class: 'actions' });
  saveButton = el('button', { type: 'submit', id: 'save', class: 'primary', 'aria-keyshortcuts': 'Control+Enter Meta+Enter' }, uiText('save'));
  cancelButton = el('button', { type: 'button', id: 'cancel', class: 'secondary' }, uiText('cancel'));
  cancelButton.addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
  status = el('span', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' });
  testButton = el('button', { type: 'button', id: 'test', class: 'secondary' }, uiText('testConnection'));
  testButton.addEventListener('click', () => {
    if (testing) vscode.postMessage({ type: 'testCancel' });
    else vscode.postMessage({ type: 'test', values: { ...values }, passwordEdited: passwordEdited() });
  });
  actions.appendChild(saveButton);
  actions.appendChild(cancelButton);
  actions.appendChild(testButton);
  actions.appendChild(status);
  formEl.appendChild(actions);
  app.appendChild(formEl);
  // The stages of a Test Connection, as they come (text only: every value is data).
  testSection = el('section', { id: 'test-results', class: 'test-results', 'aria-live': 'polite', 'aria-labelledby': 'test-title' });
  testSection.hidden = true;
  app.appendChild(testSection);
  updateTestButton();
}

/** Test Connection is offered for the server types a live server can be reached for. */
function updateTestButton(): void {
  if (!testButton || !init) return;
  testButton.hidden = !(Array.isArray(init.testTypes) && init.testTypes.includes(values.server_type));
  testButton.textContent = testing ? uiText('cancelTest') : uiText('testConnection');
}

function testRow(r: TestStageRow): HTMLElement {
  const li = el('li', { class: `stage ${r.ok ? 'ok' : 'failed'}`, 'data-stage': String(r.stage) });
  li.appendChild(el('span', { class: 'mark', 'aria-hidden': 'true' }, r.ok ? '✓' : '✗'));
  li.appendChild(el('span', { class: 'label' }, String(r.label)));
  li.appendChild(el('span', { class: 'time' }, String(r.time)));
  li.appendChild(el('span', { class: 'detail' }, String(r.detail)));
  if (typeof r.warning === 'string' && r.warning) li.appendChild(el('div', { class: 'warning' }, r.warning));
  return li;
}

/** Starts the results area of a test: its heading and an empty list the stages go into. */
function testStarted(): void {
  if (!testSection) return;
  testing = true;
  updateTestButton();
  testSection.hidden = false;
  testSection.replaceChildren(el('h2', { id: 'test-title' }, uiText('testResults')), el('p', { class: 'headline running' }, uiText('testing')), el('ol', { id: 'test-stages', class: 'stages' }));
  testSection.scrollIntoView({ block: 'nearest' });
}

function testStage(r: TestStageRow): void {
  document.getElementById('test-stages')?.appendChild(testRow(r));
}

function testResult(o: TestOutcome): void {
  if (!testSection) return;
  testing = false;
  updateTestButton();
  testSection.hidden = false;
  const list = el('ol', { id: 'test-stages', class: 'stages' });
  for (const r of Array.isArray(o.rows) ? o.rows : []) list.appendChild(testRow(r));
  const parts: HTMLElement[] = [el('h2', { id: 'test-title' }, uiText('testResults')), el('p', { class: `headline ${o.ok ? 'ok' : 'failed'}`, role: o.ok ? 'status' : 'alert' }, String(o.headline))];
  if (list.childElementCount) parts.push(list);
  if (typeof o.next === 'string' && o.next) parts.push(el('p', { class: 'next' }, uiText('testNext', o.next)));
  if (typeof o.serverSaid === 'string' && o.serverSaid) parts.push(el('p', { class: 'said' }, uiText('testServerSaid', o.serverSaid)));
  if (typeof o.note === 'string' && o.note) parts.push(el('p', { class: 'note' }, o.note));
  testSection.replaceChildren(...parts);
  testSection.scrollIntoView({ block: 'nearest' });
}

function renderFields(): void {
  if (!fieldsRoot || !init) return;
  fieldsRoot.replaceChildren();
  const specs = specsFor(values.server_type);
  const info = typeInfo(values.server_type);
  for (const group of init.groups) {
    const inGroup = specs.filter((s) => s.group === group.id);
    const isConnection = group.id === 'connection';
    if (inGroup.length === 0 && !(isConnection && info?.note)) continue;
    const fieldset = el('fieldset', { class: `group group-${group.id}` });
    fieldset.appendChild(el('legend', {}, isConnection && info ? info.connectionTitle : group.label));
    if (isConnection && info?.note) fieldset.appendChild(el('p', { class: 'note' }, info.note));
    for (const spec of inGroup) fieldset.appendChild(renderField(spec));
    fieldsRoot.appendChild(fieldset);
  }
}

function renderSelect(spec: FieldSpec): HTMLSelectElement {
  const f = spec.field;
  const select = el('select');
  const opts = spec.options ?? [];
  if (!opts.some((o) => o.value === values[f])) {
    const extra = el('option', { value: values[f] }, values[f] === '' ? uiText('choose') : uiText('notInList', values[f]));
    extra.disabled = true;
    select.appendChild(extra);
  }
  for (const o of opts) select.appendChild(el('option', { value: o.value }, o.label));
  select.value = values[f];
  select.addEventListener('change', () => {
    if (f === 'server_type') changeType(select.value);
    else {
      values[f] = select.value;
      liveCheck(f);
      notifyChange();
    }
  });
  return select;
}

function renderFlag(spec: FieldSpec): HTMLInputElement {
  const f = spec.field;
  const box = el('input', { type: 'checkbox' });
  box.checked = values[f] === '1';
  box.addEventListener('change', () => {
    values[f] = box.checked ? '1' : '0';
    liveCheck(f);
    notifyChange();
  });
  return box;
}

function renderText(spec: FieldSpec): HTMLInputElement {
  const f = spec.field;
  const text = el('input', { type: spec.kind === 'password' ? 'password' : 'text', spellcheck: 'false' });
  if (spec.kind === 'number') text.inputMode = 'numeric';
  if (spec.kind === 'url') text.inputMode = 'url';
  text.value = values[f] || '';
  text.placeholder = isSecret(f) ? passwordPlaceholder(f) : spec.placeholder || '';
  if (isSecret(f) && cleared[f]) text.disabled = true;
  text.addEventListener('input', () => {
    values[f] = text.value;
    if (errors[f]) liveCheck(f);
    notifyChange();
  });
  text.addEventListener('blur', () => {
    if (values[f] !== '' || errors[f]) liveCheck(f);
  });
  return text;
}

function renderField(spec: FieldSpec): HTMLElement {
  const f = spec.field;
  const id = `f-${f}`;
  const wrap = el('div', { class: `field field-${spec.kind}`, 'data-field': f });
  const label = el('label', { for: id });
  label.appendChild(document.createTextNode(spec.label));
  if (spec.required) label.appendChild(el('span', { class: 'required', 'aria-hidden': 'true' }, ' *'));

  const text = spec.kind === 'select' || spec.kind === 'flag' ? undefined : renderText(spec);
  const input = text ?? (spec.kind === 'select' ? renderSelect(spec) : renderFlag(spec));
  input.id = id;
  input.name = f;
  input.setAttribute('autocomplete', spec.autocomplete || 'off');
  if (spec.required) input.setAttribute('aria-required', 'true');

  if (spec.kind === 'flag') {
    const row = el('div', { class: 'check' });
    row.appendChild(input);
    row.appendChild(label);
    wrap.appendChild(row);
  } else {
    wrap.appendChild(label);
    wrap.appendChild(input);
  }
  if (spec.help) wrap.appendChild(el('div', { id: `${id}-help`, class: 'help' }, spec.help));
  if (isSecret(f) && text && init?.storedPasswords[f] && init.mode !== 'create') wrap.appendChild(renderClear(f, text));
  wrap.appendChild(el('div', { id: `${id}-error`, class: 'error' }));
  applyError(f);
  return wrap;
}

/** A "remove the saved password" / "do not copy" check box under a password input. */
function renderClear(f: SiteSecretField, input: HTMLInputElement): HTMLElement {
  const row = el('div', { class: 'check clear' });
  const box = el('input', { type: 'checkbox', id: `f-${f}-clear` });
  box.checked = cleared[f];
  const label = el('label', { for: box.id }, init?.mode === 'edit' ? uiText('removePassword') : uiText('doNotCopyPassword'));
  box.addEventListener('change', () => {
    cleared[f] = box.checked;
    if (box.checked) {
      values[f] = '';
      input.value = '';
    }
    input.disabled = box.checked;
    input.placeholder = passwordPlaceholder(f);
    notifyChange();
  });
  row.appendChild(box);
  row.appendChild(label);
  return row;
}

// ---- errors ----

function applyError(f: SaveSiteField): void {
  const input = document.getElementById(`f-${f}`);
  const node = document.getElementById(`f-${f}-error`);
  if (!input || !node) return;
  const msg = errors[f] ?? '';
  node.textContent = msg;
  node.hidden = msg === '';
  const described: string[] = [];
  if (document.getElementById(`f-${f}-help`)) described.push(`f-${f}-help`);
  if (msg) described.push(node.id);
  if (described.length) input.setAttribute('aria-describedby', described.join(' '));
  else input.removeAttribute('aria-describedby');
  if (msg) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  input.closest('.field')?.classList.toggle('invalid', msg !== '');
}

function liveCheck(f: SaveSiteField): void {
  const spec = specOf(f);
  const msg = spec ? checkField(spec, values[f] || '') : undefined;
  if (msg) errors[f] = msg;
  else delete errors[f];
  applyError(f);
  if (Object.keys(errors).length === 0) setBanner('');
}

function showErrors(list: ValidationError[]): void {
  errors = {};
  for (const e of list) errors[e.field] ??= e.message;
  for (const s of specsFor(values.server_type)) applyError(s.field);
  if (list.length) {
    setBanner(list.length === 1 ? uiText('oneError', list[0]!.message) : uiText('manyErrors', list.length));
    document.getElementById(`f-${list[0]!.field}`)?.focus();
  }
}

function setBanner(text: string): void {
  if (!banner) return;
  banner.textContent = text;
  banner.hidden = text === '';
}

function setBusy(busy: boolean): void {
  saving = busy;
  if (saveButton) {
    saveButton.disabled = busy;
    saveButton.textContent = busy ? uiText('saving') : uiText('save');
  }
  if (cancelButton) cancelButton.disabled = busy;
  if (status) status.textContent = busy ? uiText('savingStatus') : '';
  document.getElementById('form')?.setAttribute('aria-busy', busy ? 'true' : 'false');
}

// ---- actions ----

function changeType(next: string): void {
  const prev = values.server_type;
  if (!init || next === prev) return;
  const oldD = init.defaults[prev] ?? {};
  const newD = init.defaults[next] ?? {};
  for (const k of [...Object.keys(oldD), ...Object.keys(newD)] as SaveSiteField[]) {
    // Replace a value the user left at the old type's default (or empty) by the new default.
    if (values[k] === '' || values[k] === (oldD[k] ?? '')) values[k] = newD[k] ?? '';
  }
  values.server_type = next;
  updateTestButton();
  const shown = specsFor(next).map((s) => s.field);
  for (const f of Object.keys(errors) as SaveSiteField[]) if (!shown.includes(f) || f === 'server_type') delete errors[f];
  if (Object.keys(errors).length === 0) setBanner('');
  renderFields();
  document.getElementById('f-server_type')?.focus();
  notifyChange();
}

function submit(): void {
  if (saving || !init) return;
  // The fields of the chosen type, with the rules (translated) the extension applies again.
  const list = validateWith(specsFor(values.server_type), values);
  showErrors(list);
  if (list.length) return;
  setBanner('');
  setBusy(true);
  vscode.postMessage({ type: 'save', values: { ...values }, passwordEdited: passwordEdited() });
}

/** (Re)builds the form from `m`; choices kept in the webview state (for the same form) come back. */
function start(m: InitMessage): void {
  init = m;
  values = {} as FormValues;
  for (const [k, v] of Object.entries(m.values)) if (typeof v === 'string') values[k as SaveSiteField] = v;
  for (const f of SITE_SECRET_FIELDS) values[f] = '';
  const kept = parseEditorState(vscode.getState());
  const choices = kept && kept.mode === m.mode && kept.siteId === m.siteId ? kept.cleared : { ftp_pass: false, db_password: false };
  cleared = { ftp_pass: choices.ftp_pass && m.storedPasswords.ftp_pass, db_password: choices.db_password && m.storedPasswords.db_password };
  errors = {};
  saving = false;
  buildSkeleton(m);
  renderFields();
  document.getElementById('f-name')?.focus();
  // The extension forgets the password choices on a reload: tell it the kept ones.
  if (cleared.ftp_pass || cleared.db_password) notifyChange();
  else remember();
}

// ---- messages from the extension ----

window.addEventListener('message', (event: MessageEvent<HostMessage | null>) => {
  const m = event.data;
  if (!m || typeof m !== 'object' || typeof m.type !== 'string') return;
  switch (m.type) {
    case 'init':
      if (!m.values || typeof m.values !== 'object' || !m.specs || !Array.isArray(m.groups)) return;
      start(m);
      break;
    case 'errors':
      if (!init || !Array.isArray(m.errors)) return;
      setBusy(false);
      showErrors(m.errors.filter((e) => e && typeof e.field === 'string' && typeof e.message === 'string'));
      break;
    case 'saving':
      if (status) status.textContent = uiText('savingStatus');
      break;
    case 'testStarted':
      if (init) testStarted();
      break;
    case 'testStage':
      if (init && m.row && typeof m.row === 'object') testStage(m.row);
      break;
    case 'testResult':
      if (init && m.outcome && typeof m.outcome === 'object') testResult(m.outcome);
      break;
    case 'saveFailed':
      if (!init) return;
      setBusy(false);
      setBanner(uiText('notSaved', typeof m.message === 'string' ? m.message : ''));
      saveButton?.focus();
      break;
  }
});

document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    submit();
  }
  // Escape is deliberately not handled: it never closes the form or loses what was typed.
});

vscode.postMessage({ type: 'ready' });
