// The site editor's protocol (src/features/sites/protocol.ts): what the webview keeps for a reload never
// holds a typed password, and what comes back after a reload (the webview's, so untrusted) is
// checked like a message. The reload itself, in the real workbench: test/host/reload.ts.
import * as assert from 'node:assert/strict';
import { parseEditorState, parseMessage, savedState, MAX_MESSAGE_VALUE_LENGTH } from '../../src/features/sites/protocol';
import { defaultValues, type FormValues } from '../../src/features/sites/siteForm';

const typed = (): FormValues => ({ ...defaultValues('FTP'), name: 'Shop', domain: 'ftp.shop.example', ftp_pass: 'Typed-Pa55', db_password: 'Db-Pa55' });

describe('site editor protocol', () => {
  it('the kept state has what was typed and the password choices, never a typed password', () => {
    const state = savedState({ mode: 'edit', siteId: '7' }, typed(), { ftp_pass: false, db_password: true });
    assert.deepEqual(state, { mode: 'edit', siteId: '7', values: { ...typed(), ftp_pass: '', db_password: '' }, cleared: { ftp_pass: false, db_password: true } });
    assert.ok(!JSON.stringify(state).includes('Pa55'));
  });

  it('a kept state read back after a reload: the same form, a password found in it dropped', () => {
    const raw = JSON.parse(JSON.stringify({ mode: 'create', siteId: '', values: typed(), cleared: { ftp_pass: false, db_password: false } })) as unknown;
    const back = parseEditorState(raw);
    assert.ok(back);
    assert.equal(back.values.name, 'Shop');
    assert.equal(back.values.domain, 'ftp.shop.example');
    assert.equal(back.values.ftp_pass, '');
    assert.equal(back.values.db_password, '');
    const kept = savedState({ mode: 'duplicate', siteId: '3' }, typed(), { ftp_pass: true, db_password: false });
    assert.deepEqual(parseEditorState(JSON.parse(JSON.stringify(kept))), kept, 'what the webview keeps reads back unchanged');
  });

  it('refuses a kept state of the wrong shape (the panel is then closed, not restored)', () => {
    const ok = savedState({ mode: 'edit', siteId: '7' }, typed(), { ftp_pass: false, db_password: false });
    const bad: unknown[] = [
      undefined,
      null,
      'state',
      [],
      { ...ok, mode: 'delete' },
      { ...ok, siteId: 7 },
      { ...ok, mode: 'create' }, // a new site has no id
      { ...ok, siteId: '' }, // an edit has one
      { ...ok, values: { ...ok.values, name: 1 } },
      { ...ok, values: { ...ok.values, unknown_field: 'x' } },
      { ...ok, values: { name: 'only a name' } },
      { ...ok, values: { ...ok.values, name: 'n'.repeat(MAX_MESSAGE_VALUE_LENGTH + 1) } },
      { ...ok, cleared: { ftp_pass: 'yes', db_password: false } },
      { ...ok, cleared: undefined },
    ];
    for (const b of bad) assert.equal(parseEditorState(b), undefined, JSON.stringify(b)?.slice(0, 120));
  });

  it('messages from the webview: known types with checked values only', () => {
    const edited = { ftp_pass: true, db_password: false };
    assert.deepEqual(parseMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseMessage({ type: 'save', values: typed(), passwordEdited: edited }), { type: 'save', values: typed(), passwordEdited: edited });
    assert.deepEqual(parseMessage({ type: 'change', values: { name: 'x' }, passwordEdited: edited }), { type: 'change', values: { name: 'x' }, passwordEdited: edited });
    assert.equal(parseMessage({ type: 'save', values: { name: 'x' }, passwordEdited: edited }), undefined, 'a save carries every field');
    assert.equal(parseMessage({ type: 'change', values: JSON.parse('{"__proto__":"x"}') as unknown, passwordEdited: edited }), undefined);
    assert.equal(parseMessage({ type: 'eval' }), undefined);
  });
});
