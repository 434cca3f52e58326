// Site editor webview script (plain JS, no framework, no inline code: the CSP allows only this
// file). The form is built with DOM APIs from the state the extension posts; every string that
// came from the service is inserted with textContent or as an input's value, never as HTML.
//
// Field labels, per-type visibility and validation rules come from the extension (siteForm.ts)
// in the `init` message; the small rule interpreter below follows the same semantics as
// checkField() there (a unit test runs both on the same inputs). The extension validates again
// on save and is authoritative.
(function () {
  'use strict';

  /** @param {string} value */
  function isHttpUrl(value) {
    if (/\s/.test(value)) return false;
    var u;
    try {
      u = new URL(value);
    } catch (e) {
      return false;
    }
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  }

  /**
   * The first failing rule's message, or undefined. Same semantics as checkField() in siteForm.ts.
   * @param {{ kind: string, rules: any[] }} spec
   * @param {string} raw
   */
  function checkField(spec, raw) {
    var value = spec.kind === 'password' ? raw : raw.trim();
    for (var i = 0; i < spec.rules.length; i++) {
      var rule = spec.rules[i];
      switch (rule.kind) {
        case 'required':
          if (value === '') return rule.message;
          break;
        case 'maxLength':
          if (value.length > rule.max) return rule.message;
          break;
        case 'oneOf':
          if (rule.values.indexOf(value) < 0) return rule.message;
          break;
        case 'pattern':
          if (value !== '' && !new RegExp(rule.source).test(value)) return rule.message;
          break;
        case 'integer':
          if (value !== '' && (!/^[0-9]+$/.test(value) || Number(value) < rule.min || Number(value) > rule.max)) return rule.message;
          break;
        case 'httpUrl':
          if (value !== '' && !isHttpUrl(value)) return rule.message;
          break;
      }
    }
    return undefined;
  }

  /**
   * @param {{ field: string, kind: string, rules: any[] }[]} specs
   * @param {Record<string, string>} values
   */
  function validateAll(specs, values) {
    var errors = [];
    for (var i = 0; i < specs.length; i++) {
      var msg = checkField(specs[i], values[specs[i].field] || '');
      if (msg !== undefined) errors.push({ field: specs[i].field, message: msg });
    }
    return errors;
  }

  var shared = { isHttpUrl: isHttpUrl, checkField: checkField, validateAll: validateAll };
  // In plain Node (unit tests) the interpreter is exported and the UI does not start.
  if (typeof module === 'object' && module !== null) module.exports = shared;
  if (typeof acquireVsCodeApi !== 'function') return;
  start(acquireVsCodeApi());

  /** @param {{ postMessage(m: unknown): void }} vscode */
  function start(vscode) {
    var SECRETS = ['ftp_pass', 'db_password'];
    var isMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || '');

    /** @type {any} */
    var init = null;
    /** @type {Record<string, string>} */
    var values = {};
    /** Passwords the user chose to remove (edit) or not to copy (duplicate). */
    var cleared = { ftp_pass: false, db_password: false };
    /** @type {Record<string, string>} field -> error message */
    var errors = {};
    var saving = false;

    /** @type {HTMLElement | null} */
    var fieldsRoot = null;
    /** @type {HTMLElement | null} */
    var banner = null;
    /** @type {HTMLButtonElement | null} */
    var saveButton = null;
    /** @type {HTMLButtonElement | null} */
    var cancelButton = null;
    /** @type {HTMLElement | null} */
    var status = null;

    // ---- helpers ----

    /**
     * @param {string} tag
     * @param {Record<string, string>} [attrs]
     * @param {string} [text]
     */
    function el(tag, attrs, text) {
      var node = document.createElement(tag);
      if (attrs) for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) node.setAttribute(k, attrs[k]);
      if (text !== undefined) node.textContent = text;
      return node;
    }

    function specsFor(type) {
      var s = init.specs[type];
      return Array.isArray(s) ? s : init.commonSpecs;
    }

    function typeInfo(type) {
      for (var i = 0; i < init.serverTypes.length; i++) if (init.serverTypes[i].value === type) return init.serverTypes[i];
      return null;
    }

    function specOf(field) {
      var specs = specsFor(values.server_type);
      for (var i = 0; i < specs.length; i++) if (specs[i].field === field) return specs[i];
      return null;
    }

    function passwordEdited() {
      return {
        ftp_pass: values.ftp_pass !== '' || cleared.ftp_pass,
        db_password: values.db_password !== '' || cleared.db_password,
      };
    }

    function nonSecretValues() {
      var out = {};
      for (var k in values) if (Object.prototype.hasOwnProperty.call(values, k) && SECRETS.indexOf(k) < 0) out[k] = values[k];
      return out;
    }

    /**
     * A fixed text of this script, as the extension translated it (`init.strings`), with `{0}`
     * filled in.
     * @param {string} key
     * @param {string | number} [arg]
     */
    function uiText(key, arg) {
      var s = init && init.strings && typeof init.strings[key] === 'string' ? init.strings[key] : '';
      return arg === undefined ? s : s.replace('{0}', function () {
        return String(arg);
      });
    }

    function notifyChange() {
      vscode.postMessage({ type: 'change', values: nonSecretValues(), passwordEdited: passwordEdited() });
    }

    function passwordPlaceholder(field) {
      if (!init.storedPasswords[field]) return '';
      if (init.mode === 'edit') return cleared[field] ? uiText('passwordWillBeRemoved') : uiText('passwordUnchanged');
      if (init.mode === 'duplicate') return cleared[field] ? uiText('passwordNotCopied') : uiText('passwordCopied');
      return '';
    }

    // ---- building the form ----

    function buildSkeleton() {
      var app = document.getElementById('app');
      if (!app) return;
      app.replaceChildren();
      app.removeAttribute('aria-busy');

      app.appendChild(el('h1', { id: 'title' }, init.title));
      var shortcut = isMac ? '⌘+Enter' : 'Ctrl+Enter';
      app.appendChild(el('p', { class: 'intro' }, uiText('intro', shortcut)));

      banner = el('div', { id: 'banner', class: 'banner', role: 'alert' });
      banner.hidden = true;
      app.appendChild(banner);

      var form = el('form', { id: 'form', novalidate: '' });
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        submit();
      });
      fieldsRoot = el('div', { id: 'fields' });
      form.appendChild(fieldsRoot);

      var actions = el('div', { class: 'actions' });
      saveButton = /** @type {HTMLButtonElement} */ (el('button', { type: 'submit', id: 'save', class: 'primary', 'aria-keyshortcuts': 'Control+Enter Meta+Enter' }, uiText('save')));
      cancelButton = /** @type {HTMLButtonElement} */ (el('button', { type: 'button', id: 'cancel', class: 'secondary' }, uiText('cancel')));
      cancelButton.addEventListener('click', function () {
        vscode.postMessage({ type: 'cancel' });
      });
      status = el('span', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' });
      actions.appendChild(saveButton);
      actions.appendChild(cancelButton);
      actions.appendChild(status);
      form.appendChild(actions);
      app.appendChild(form);
    }

    function renderFields() {
      if (!fieldsRoot) return;
      fieldsRoot.replaceChildren();
      var type = values.server_type;
      var specs = specsFor(type);
      var info = typeInfo(type);
      for (var g = 0; g < init.groups.length; g++) {
        var group = init.groups[g];
        var inGroup = specs.filter(function (s) {
          return s.group === group.id;
        });
        var isConnection = group.id === 'connection';
        if (inGroup.length === 0 && !(isConnection && info && info.note)) continue;
        var fieldset = el('fieldset', { class: 'group group-' + group.id });
        fieldset.appendChild(el('legend', {}, isConnection && info ? info.connectionTitle : group.label));
        if (isConnection && info && info.note) fieldset.appendChild(el('p', { class: 'note' }, info.note));
        for (var i = 0; i < inGroup.length; i++) fieldset.appendChild(renderField(inGroup[i]));
        fieldsRoot.appendChild(fieldset);
      }
    }

    /** @param {any} spec */
    function renderField(spec) {
      var f = spec.field;
      var id = 'f-' + f;
      var wrap = el('div', { class: 'field field-' + spec.kind, 'data-field': f });
      var label = el('label', { for: id });
      label.appendChild(document.createTextNode(spec.label));
      if (spec.required) label.appendChild(el('span', { class: 'required', 'aria-hidden': 'true' }, ' *'));

      /** @type {HTMLInputElement | HTMLSelectElement} */
      var input;
      if (spec.kind === 'select') {
        var select = document.createElement('select');
        var opts = spec.options || [];
        var known = opts.some(function (o) {
          return o.value === values[f];
        });
        if (!known) {
          var extra = el('option', { value: values[f] }, values[f] === '' ? uiText('choose') : uiText('notInList', values[f]));
          /** @type {HTMLOptionElement} */ (extra).disabled = true;
          select.appendChild(extra);
        }
        for (var i = 0; i < opts.length; i++) select.appendChild(el('option', { value: opts[i].value }, opts[i].label));
        select.value = values[f];
        select.addEventListener('change', function () {
          if (f === 'server_type') changeType(select.value);
          else {
            values[f] = select.value;
            liveCheck(f);
            notifyChange();
          }
        });
        input = select;
      } else if (spec.kind === 'flag') {
        var box = /** @type {HTMLInputElement} */ (el('input', { type: 'checkbox' }));
        box.checked = values[f] === '1';
        box.addEventListener('change', function () {
          values[f] = box.checked ? '1' : '0';
          liveCheck(f);
          notifyChange();
        });
        input = box;
      } else {
        var text = /** @type {HTMLInputElement} */ (el('input', { type: spec.kind === 'password' ? 'password' : 'text', spellcheck: 'false' }));
        if (spec.kind === 'number') text.inputMode = 'numeric';
        if (spec.kind === 'url') text.inputMode = 'url';
        text.value = values[f] || '';
        text.placeholder = spec.kind === 'password' ? passwordPlaceholder(f) : spec.placeholder || '';
        if (spec.kind === 'password' && cleared[f]) text.disabled = true;
        text.addEventListener('input', function () {
          values[f] = text.value;
          if (errors[f]) liveCheck(f);
          notifyChange();
        });
        text.addEventListener('blur', function () {
          if (values[f] !== '' || errors[f]) liveCheck(f);
        });
        input = text;
      }
      input.id = id;
      input.name = f;
      input.setAttribute('autocomplete', spec.autocomplete || 'off');
      if (spec.required) input.setAttribute('aria-required', 'true');

      var help = spec.help ? el('div', { id: id + '-help', class: 'help' }, spec.help) : null;
      var error = el('div', { id: id + '-error', class: 'error' });

      if (spec.kind === 'flag') {
        var row = el('div', { class: 'check' });
        row.appendChild(input);
        row.appendChild(label);
        wrap.appendChild(row);
      } else {
        wrap.appendChild(label);
        wrap.appendChild(input);
      }
      if (help) wrap.appendChild(help);
      if (spec.kind === 'password' && init.storedPasswords[f] && init.mode !== 'create') wrap.appendChild(renderClear(f, input));
      wrap.appendChild(error);
      applyError(f);
      return wrap;
    }

    /** A "remove the saved password" / "do not copy" check box under a password input. */
    function renderClear(f, input) {
      var row = el('div', { class: 'check clear' });
      var box = /** @type {HTMLInputElement} */ (el('input', { type: 'checkbox', id: 'f-' + f + '-clear' }));
      box.checked = cleared[f];
      var label = el('label', { for: box.id }, init.mode === 'edit' ? uiText('removePassword') : uiText('doNotCopyPassword'));
      box.addEventListener('change', function () {
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

    function applyError(f) {
      var input = document.getElementById('f-' + f);
      var node = document.getElementById('f-' + f + '-error');
      if (!input || !node) return;
      var msg = errors[f] || '';
      node.textContent = msg;
      node.hidden = msg === '';
      var described = [];
      if (document.getElementById('f-' + f + '-help')) described.push('f-' + f + '-help');
      if (msg) described.push(node.id);
      if (described.length) input.setAttribute('aria-describedby', described.join(' '));
      else input.removeAttribute('aria-describedby');
      if (msg) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
      var wrap = input.closest('.field');
      if (wrap) wrap.classList.toggle('invalid', msg !== '');
    }

    function liveCheck(f) {
      var spec = specOf(f);
      var msg = spec ? checkField(spec, values[f] || '') : undefined;
      if (msg) errors[f] = msg;
      else delete errors[f];
      applyError(f);
      if (Object.keys(errors).length === 0) setBanner('');
    }

    /** @param {{ field: string, message: string }[]} list */
    function showErrors(list) {
      errors = {};
      for (var i = 0; i < list.length; i++) if (!errors[list[i].field]) errors[list[i].field] = list[i].message;
      var specs = specsFor(values.server_type);
      for (var j = 0; j < specs.length; j++) applyError(specs[j].field);
      if (list.length) {
        setBanner(list.length === 1 ? uiText('oneError', list[0].message) : uiText('manyErrors', list.length));
        var first = document.getElementById('f-' + list[0].field);
        if (first) first.focus();
      }
    }

    function setBanner(text) {
      if (!banner) return;
      banner.textContent = text;
      banner.hidden = text === '';
    }

    function setBusy(busy) {
      saving = busy;
      if (saveButton) {
        saveButton.disabled = busy;
        saveButton.textContent = busy ? uiText('saving') : uiText('save');
      }
      if (cancelButton) cancelButton.disabled = busy;
      if (status) status.textContent = busy ? uiText('savingStatus') : '';
      var form = document.getElementById('form');
      if (form) form.setAttribute('aria-busy', busy ? 'true' : 'false');
    }

    // ---- actions ----

    function changeType(next) {
      var prev = values.server_type;
      if (next === prev) return;
      var oldD = init.defaults[prev] || {};
      var newD = init.defaults[next] || {};
      var keys = Object.keys(oldD).concat(Object.keys(newD));
      for (var i = 0; i < keys.length; i++) {
        var k = keys[i];
        // Replace a value the user left at the old type's default (or empty) by the new default.
        if (values[k] === '' || values[k] === (oldD[k] || '')) values[k] = newD[k] || '';
      }
      values.server_type = next;
      var shown = specsFor(next).map(function (s) {
        return s.field;
      });
      for (var f in errors) if (shown.indexOf(f) < 0 || f === 'server_type') delete errors[f];
      if (Object.keys(errors).length === 0) setBanner('');
      renderFields();
      var sel = document.getElementById('f-server_type');
      if (sel) sel.focus();
      notifyChange();
    }

    function submit() {
      if (saving || !init) return;
      var list = validateAll(specsFor(values.server_type), values);
      showErrors(list);
      if (list.length) return;
      setBanner('');
      setBusy(true);
      var copy = {};
      for (var k in values) if (Object.prototype.hasOwnProperty.call(values, k)) copy[k] = values[k];
      vscode.postMessage({ type: 'save', values: copy, passwordEdited: passwordEdited() });
    }

    // ---- messages from the extension ----

    window.addEventListener('message', function (event) {
      var m = event.data;
      if (!m || typeof m !== 'object' || typeof m.type !== 'string') return;
      switch (m.type) {
        case 'init':
          if (!m.values || typeof m.values !== 'object' || !m.specs || !Array.isArray(m.groups)) return;
          init = m;
          values = {};
          for (var k in m.values) if (typeof m.values[k] === 'string') values[k] = m.values[k];
          for (var s = 0; s < SECRETS.length; s++) values[SECRETS[s]] = '';
          cleared = { ftp_pass: false, db_password: false };
          errors = {};
          saving = false;
          buildSkeleton();
          renderFields();
          var name = document.getElementById('f-name');
          if (name) name.focus();
          break;
        case 'errors':
          if (!init || !Array.isArray(m.errors)) return;
          setBusy(false);
          showErrors(
            m.errors.filter(function (e) {
              return e && typeof e.field === 'string' && typeof e.message === 'string';
            }),
          );
          break;
        case 'saving':
          if (status) status.textContent = uiText('savingStatus');
          break;
        case 'saveFailed':
          if (!init) return;
          setBusy(false);
          setBanner(uiText('notSaved', typeof m.message === 'string' ? m.message : ''));
          if (saveButton) saveButton.focus();
          break;
      }
    });

    document.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        submit();
      }
      // Escape is deliberately not handled: it never closes the form or loses what was typed.
    });

    vscode.postMessage({ type: 'ready' });
  }
})();
