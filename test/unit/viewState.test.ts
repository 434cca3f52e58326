// The Sites view's failure states: which state (and hint) each error gives, and that package.json
// has welcome content — an explanation and working buttons — for every one of them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AuthError, HttpStatusError, InvalidReplyError, NetworkError, RedirectError, ServiceError, TimeoutError } from '../../src/core/api/errors';
import { asSentence } from '../../src/core/util/l10n';
import { failureOf, serviceWordsOf, VIEW_PROBLEMS, VIEW_STATES, type ViewState } from '../../src/features/sites/viewState';

/** The states that explain a failure (the rest: signed out, loading, the list, no sites). */
const FAILURE_STATES = VIEW_STATES.filter((s) => !(['signedOut', 'loading', 'ready', 'empty'] as ViewState[]).includes(s));

const root = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  contributes: { viewsWelcome: { view: string; when: string; contents: string }[]; commands: { command: string }[] };
};
const nls = JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;

/** The welcome entries of the Sites view whose `when` names this state (and hint), with their text resolved. */
function welcome(state: string, problem?: string): { when: string; text: string }[] {
  return pkg.contributes.viewsWelcome
    .filter((w) => w.view === 'siteRevisions.sites')
    .filter((w) => (state === 'expired' ? w.when === 'siteRevisions.sessionExpired' : w.when.includes(`siteRevisions.view == ${state}`)))
    .filter((w) => (problem ? w.when.includes(`siteRevisions.viewProblem == ${problem}`) : !w.when.includes('viewProblem')))
    .map((w) => ({ when: w.when, text: nls[w.contents.replace(/^%|%$/g, '')] ?? w.contents }));
}

const buttons = (text: string) => [...text.matchAll(/^\[([^\]]+)\]\(command:([^)?]+)/gm)].map((m) => ({ label: m[1]!, command: m[2]! }));

describe('Sites view failure states', () => {
  it('each error gives its state and, where the cause is known, a hint', () => {
    const op = 'Get Sites';
    const cases: [unknown, string, string | undefined][] = [
      [new AuthError(op, 'Login required'), 'expired', undefined],
      [new NetworkError(op, 'ECONNREFUSED', 'could not connect'), 'unreachable', 'refused'],
      [new NetworkError(op, 'ENOTFOUND', 'no such host'), 'unreachable', 'hostNotFound'],
      [new NetworkError(op, 'EAI_AGAIN', 'dns'), 'unreachable', 'hostNotFound'],
      [new NetworkError(op, 'SELF_SIGNED_CERT_IN_CHAIN', 'certificate'), 'unreachable', 'certificate'],
      [new NetworkError(op, 'EPROXYAUTH', 'the proxy asks for credentials'), 'unreachable', 'proxy'],
      [new NetworkError(op, 'ECONNRESET', 'reset'), 'unreachable', undefined],
      [new TimeoutError(op, 30000), 'unreachable', 'timeout'],
      [new HttpStatusError(op, 503), 'unreachable', 'unavailable'],
      [new HttpStatusError(op, 429), 'unreachable', 'unavailable'],
      [new HttpStatusError(op, 500), 'error', 'httpStatus'],
      [new HttpStatusError(op, 404), 'error', 'httpStatus'],
      [new ServiceError(op, 'Account suspended'), 'error', 'serviceSaid'],
      [new RedirectError(op, 302, 'https://login.example/'), 'redirect', undefined],
      [new InvalidReplyError(op, 'not JSON but text/html', '<html><body>Fatal error'), 'notData', 'html'],
      [new InvalidReplyError(op, 'not valid JSON, possibly cut off', '<!DOCTYPE html><html>'), 'notData', 'html'],
      [new InvalidReplyError(op, 'no "sites" list', '{"x":1}'), 'notData', undefined],
      [new Error('something else'), 'error', undefined],
    ];
    for (const [e, state, problem] of cases) assert.deepEqual(failureOf(e), problem ? { state, problem } : { state }, String(e));
  });

  it('the service’s own words: its {success:false, error} text with HTTP 200 or an error status; none otherwise', () => {
    const op = 'Get Sites';
    assert.deepEqual(serviceWordsOf(new ServiceError(op, 'Your subscription has expired')), { text: 'Your subscription has expired' });
    assert.deepEqual(serviceWordsOf(new HttpStatusError(op, 500, undefined, 'Account locked', 'Account locked')), { text: 'Account locked', status: 500 });
    assert.equal(serviceWordsOf(new HttpStatusError(op, 502, undefined, '<html><body>Bad Gateway')), undefined, 'an excerpt of a page is not the service’s words; a busy service’s hint names the statuses');
    assert.deepEqual(serviceWordsOf(new HttpStatusError(op, 500, undefined, '<!DOCTYPE html><html><head><title>500 Internal Server Error')), { status: 500 }, 'an error page: its status, not its excerpt');
    for (const e of [new AuthError(op, 'Login required'), new NetworkError(op, 'ECONNRESET', 'reset'), new ServiceError(op, '  '), new Error('x'), 'text']) assert.equal(serviceWordsOf(e), undefined, String(e));
  });

  it('package.json draws an explanation and working buttons for every failure state, and a sentence for every hint', () => {
    const commands = new Set([...pkg.contributes.commands.map((c) => c.command), 'workbench.action.openSettings']);
    for (const state of FAILURE_STATES) {
      const entries = welcome(state);
      assert.ok(entries.length >= 1, `no welcome content for ${state}`);
      const text = entries.map((e) => e.text).join('\n');
      const prose = text.split('\n').filter((l) => !l.startsWith('['));
      assert.ok(prose.length >= 1 && prose.every((l) => /[.!?]$/.test(l)), `${state}: an explanation in whole sentences: ${JSON.stringify(prose)}`);
      const b = buttons(text);
      assert.ok(b.some((x) => x.label === 'Show Log'), `${state}: a Show Log button`);
      assert.ok(b.some((x) => ['Retry', 'Sign In Again'].includes(x.label)), `${state}: a way out (Retry or Sign In Again)`);
      for (const x of b) assert.ok(commands.has(x.command), `${state}: ${x.label} runs ${x.command}, which exists`);
      // Apart from the expired state (the session's own context key), each state yields to it.
      if (state !== 'expired') for (const e of entries) assert.match(e.when, /!siteRevisions\.sessionExpired/);
    }
    // The buttons come after the explanation and the hint: they are the last entry of the state.
    for (const state of ['unreachable', 'error', 'notData']) {
      const entries = pkg.contributes.viewsWelcome.filter((w) => w.view === 'siteRevisions.sites' && w.when.includes(`siteRevisions.view == ${state}`));
      assert.match(nls[entries.at(-1)!.contents.replace(/%/g, '')]!, /^\[/, `${state}: buttons last`);
    }
    const hinted: Record<string, string> = { refused: 'unreachable', hostNotFound: 'unreachable', timeout: 'unreachable', certificate: 'unreachable', proxy: 'unreachable', unavailable: 'unreachable', serviceSaid: 'error', httpStatus: 'error', html: 'notData' };
    for (const problem of VIEW_PROBLEMS) {
      const entries = welcome(hinted[problem]!, problem);
      assert.equal(entries.length, 1, `one hint sentence for ${problem}`);
      assert.match(entries[0]!.text, /^[^[\n].*[.!?]$/, `${problem}: a sentence`);
    }
  });

  it('asSentence ends a message so that the next sentence does not run on', () => {
    assert.equal(asSentence('could not connect (ECONNREFUSED)'), 'could not connect (ECONNREFUSED).');
    assert.equal(asSentence('no answer within 30 s.'), 'no answer within 30 s.');
    assert.equal(asSentence('what? '), 'what?');
    assert.equal(asSentence(''), '');
  });
});
