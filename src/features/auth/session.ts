// The signed-in account: where the secrets live (SecretStorage only), the service client built
// on them (on the first request: ./clientFactory.ts), and the one place that reacts to "signed
// out" (HTTP 401) replies.
import * as vscode from 'vscode';
import type { SiteRevisionClient } from '../../core/api/client';
import { AuthError, isApiError } from '../../core/api/errors';
import { parseServiceUrl } from '../../core/api/url';
import type { Credentials } from '../../core/api/types';
import type { Log } from '../../workbench/log';
import { message, showWarning } from '../../workbench/messages';
import { setContext } from '../../workbench/context';
import { background } from '../../core/util/background';
import { Disposable } from '../../core/util/disposable';
import type { RequestScheduler } from '../../core/scheduler';
import { isOffline } from '../sites/viewState';
import { feature } from '../../workbench/feature';

/** The client's code, loaded when the first client is made. */
const clientFactory = feature(() => import('./clientFactory.js'));

/** What is remembered outside SecretStorage: never a password or key. */
export interface Account {
  serviceUrl: string;
  email: string;
}

export type SessionState = 'signedOut' | 'signedIn' | 'expired';

const ACCOUNT_KEY = 'siteRevisions.account';
/** The SecretStorage keys this extension has stored (the keys name an origin and an email, never a secret). */
const SECRET_KEYS = 'siteRevisions.secretKeys';
const SECRET_PREFIX = 'siteRevisions:';
/**
 * The account (serviceUrl|email) whose credentials the service refused: they are not sent again,
 * not even after a restart, until the user signs in.
 */
const EXPIRED_KEY = 'siteRevisions.expiredAccount';

function accountId(a: Account): string {
  return `${a.serviceUrl}|${a.email.toLowerCase()}`;
}

export function secretKey(serviceUrl: string, email: string, what: 'password' | 'apiKey'): string {
  return `${SECRET_PREFIX}${new URL(serviceUrl).origin}:${email.toLowerCase()}:${what}`;
}

/**
 * Checks a service URL typed by the user with the client's own parser (src/core/api/url.ts), refusing
 * what the client would silently drop; returns a translated error message or the normalized URL.
 */
export function normalizeServiceUrl(input: string): { url: string } | { error: string } {
  const u = parseServiceUrl(input);
  if ('error' in u) {
    return { error: u.error === 'not-a-url' ? vscode.l10n.t('Enter a full URL such as {0}', 'https://example.com') : vscode.l10n.t('The service URL must start with {0}', 'https://') };
  }
  if (u.hadCredentials) return { error: vscode.l10n.t('Do not put credentials in the URL; you will be asked for them.') };
  if (u.hadQuery) return { error: vscode.l10n.t('The service URL must not have a query or fragment.') };
  if (u.insecure) return { error: vscode.l10n.t('Plain http is only allowed to this machine (localhost); use {0}', 'https://') };
  return { url: u.base };
}

export class Session extends Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<SessionState>();
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidChangeOnline = new vscode.EventEmitter<boolean>();
  /** Fires when the service stops or starts answering (true: it answers again). */
  readonly onDidChangeOnline = this._onDidChangeOnline.event;
  /** Since when (epoch ms) the service could not be reached; undefined while it answers. */
  private _offlineSince: number | undefined;
  /** Calls started so far, and the latest of them that reached the service. */
  private calls = 0;
  private lastReached = 0;
  private _state: SessionState = 'signedOut';
  private _account: Account | undefined;
  private credentials: Credentials | undefined;
  private _client: SiteRevisionClient | undefined;
  /** The client being made (its code loading) for the credentials of `generation`. */
  private making: { generation: number; client: Promise<SiteRevisionClient> } | undefined;
  /** Counts the changes of account, credentials or settings: a client made for an earlier one is not used. */
  private generation = 0;
  /** The "sign in again" message while it is on screen (one per expiry, not one per request). */
  private reauthPrompt: Thenable<unknown> | undefined;
  /** This window's own sign-in or sign-out is changing the secrets (not another window). */
  private changing = 0;
  /** Following the other windows' changes of the secrets, one after another. */
  private following: Promise<void> = Promise.resolve();

  /**
   * @param scheduler the extension's one request scheduler: every client this session makes
   * (the sign-in trial's too) sends through it.
   */
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: Log,
    private readonly scheduler?: RequestScheduler,
  ) {
    super();
    this.own(this._onDidChange);
    this.own(this._onDidChangeOnline);
    // SecretStorage is shared by every window: one that signs out (or in) changes it for all.
    const secrets = context.secrets as Partial<vscode.SecretStorage> | undefined;
    if (typeof secrets?.onDidChange === 'function') {
      this.own(
        secrets.onDidChange((e) => {
          if (!e.key.startsWith(SECRET_PREFIX)) return;
          this.following = this.following.then(() => this.followSecrets()).catch((err: unknown) => this.log.error('Following a change of the stored credentials failed:', err));
        }),
      );
    }
  }

  /** Whether the last request found the service unreachable (no connection, no answer in time). */
  get offline(): boolean {
    return this._offlineSince !== undefined;
  }

  /**
   * Records whether the service answered. Every call through call() reports here; so does any
   * other request the extension makes with the client, through its callers.
   */
  reportReachable(reached: boolean, started = ++this.calls): void {
    if (reached) this.lastReached = Math.max(this.lastReached, started);
    // A call that started before the last one that got through says nothing new (retries of a
    // read sent while the service was down end after it is back).
    else if (started < this.lastReached) return;
    if (reached === !this.offline) return;
    this._offlineSince = reached ? undefined : Date.now();
    this.log.info(reached ? 'The service answers again.' : 'The service cannot be reached: what is cached is shown, marked offline.');
    setContext('siteRevisions.offline', !reached);
    this._onDidChangeOnline.fire(reached);
  }

  get state(): SessionState {
    return this._state;
  }
  get account(): Account | undefined {
    return this._account;
  }

  /** Restores the remembered account when its secrets are still in SecretStorage. */
  async restore(): Promise<void> {
    const acc = this.context.globalState.get<Account>(ACCOUNT_KEY);
    if (!acc) return this.setState('signedOut');
    const password = await this.context.secrets.get(secretKey(acc.serviceUrl, acc.email, 'password'));
    if (!password) return this.setState('signedOut');
    const apiKey = await this.context.secrets.get(secretKey(acc.serviceUrl, acc.email, 'apiKey'));
    this.use(acc, { email: acc.email, password, ...(apiKey ? { apiKey } : {}) });
    // Refused before the restart: still refused until the user signs in (no request to find out).
    if (this.context.globalState.get<string>(EXPIRED_KEY) === accountId(acc)) return this.setState('expired');
    this.signedIn();
  }

  /**
   * Verifies the credentials with a real call (Get Sites) before anything is stored.
   * Throws the client's typed error when the service refuses them.
   */
  async signIn(serviceUrl: string, creds: Credentials, token?: vscode.CancellationToken): Promise<void> {
    this.changing++;
    try {
      await this.signInNow(serviceUrl, creds, token);
    } finally {
      this.changing--;
    }
  }

  private async signInNow(serviceUrl: string, creds: Credentials, token?: vscode.CancellationToken): Promise<void> {
    const norm = normalizeServiceUrl(serviceUrl);
    if ('error' in norm) throw new Error(norm.error);
    const account: Account = { serviceUrl: norm.url, email: creds.email.trim() };
    const trial = await this.makeClient(account.serviceUrl, { ...creds, email: account.email });
    const ac = new AbortController();
    const sub = token?.onCancellationRequested(() => ac.abort());
    if (token?.isCancellationRequested) ac.abort();
    try {
      await trial.getSites({ signal: ac.signal });
    } catch (e) {
      await trial.dispose();
      throw e;
    } finally {
      sub?.dispose();
    }
    await trial.dispose();
    const keep = [secretKey(account.serviceUrl, account.email, 'password')];
    await this.storeSecret(keep[0]!, creds.password);
    if (creds.apiKey) {
      keep.push(secretKey(account.serviceUrl, account.email, 'apiKey'));
      await this.storeSecret(keep[1]!, creds.apiKey);
    }
    await this.context.globalState.update(ACCOUNT_KEY, account);
    // Another account, another service URL or no API key any more: the previous secrets go.
    await this.deleteSecrets(keep);
    this.use(account, { ...creds, email: account.email });
    await this.context.globalState.update(EXPIRED_KEY, undefined);
    this.log.info(`Signed in to ${new URL(account.serviceUrl).origin} as ${account.email}`);
    this.signedIn();
  }

  /** Signed in, however it happened: a "sign in again" message still on screen is history. */
  private signedIn(): void {
    this.reauthPrompt = undefined;
    this.setState('signedIn');
  }

  /** Forgets every secret this extension stored and the remembered account. */
  async signOut(): Promise<void> {
    this.changing++;
    try {
      await this.deleteSecrets([]);
      await this.context.globalState.update(ACCOUNT_KEY, undefined);
      await this.context.globalState.update(EXPIRED_KEY, undefined);
    } finally {
      this.changing--;
    }
    this.signedOut('Signed out');
  }

  /** Signed out in this window: the client and the credentials out of memory. */
  private signedOut(why: string): void {
    this.forgetClient();
    this._account = undefined;
    this._offlineSince = undefined;
    this.log.info(why);
    this.setState('signedOut');
  }

  /**
   * Another window changed this extension's secrets (a change made here is its own business).
   * The password of this window's account is gone: signed out here too (the credentials out of
   * memory; the account's disk cache is closed and deleted as for any sign-out). Other secrets of
   * the same account (it signed in again there): they are used. Then, signed out here, an account
   * remembered with its password (another window signed in as it) is used, as a reload would.
   */
  private async followSecrets(): Promise<void> {
    if (this.changing) return;
    const acc = this._account;
    if (acc && this._state !== 'signedOut') {
      const s = this.context.secrets;
      const [password, apiKey] = await Promise.all([s.get(secretKey(acc.serviceUrl, acc.email, 'password')), s.get(secretKey(acc.serviceUrl, acc.email, 'apiKey'))]);
      if (this.changing || this._account !== acc) return;
      const held = this.credentials;
      if (password && held?.password === password && (held.apiKey || undefined) === (apiKey || undefined)) return;
      if (!password) {
        this.signedOut('Signed out in another window');
      } else {
        this.use(acc, { email: acc.email, password, ...(apiKey ? { apiKey } : {}) });
        this.log.info('Signed in again in another window: its credentials are used');
        if (this.context.globalState.get<string>(EXPIRED_KEY) !== accountId(acc)) this.signedIn();
        return;
      }
    }
    const remembered = this.context.globalState.get<Account>(ACCOUNT_KEY);
    if (!remembered || !(await this.context.secrets.get(secretKey(remembered.serviceUrl, remembered.email, 'password')))) return;
    if (this.changing || this._state !== 'signedOut') return;
    this.log.info('Signed in in another window: this window follows');
    await this.restore();
  }

  /** Stores a secret and remembers its key (for deleteSecrets). */
  private async storeSecret(key: string, value: string): Promise<void> {
    const known = this.context.globalState.get<string[]>(SECRET_KEYS) ?? [];
    if (!known.includes(key)) await this.context.globalState.update(SECRET_KEYS, [...known, key]);
    await this.context.secrets.store(key, value);
  }

  /**
   * Deletes every secret this extension stored except those under `keep`: the keys it
   * remembered, those of the remembered account (stored before keys were remembered), and where
   * VS Code can list them, every key of this extension's storage with our prefix.
   */
  private async deleteSecrets(keep: readonly string[]): Promise<void> {
    const s = this.context.secrets;
    const keys = new Set(this.context.globalState.get<string[]>(SECRET_KEYS) ?? []);
    for (const acc of [this._account, this.context.globalState.get<Account>(ACCOUNT_KEY)]) {
      if (acc) for (const what of ['password', 'apiKey'] as const) keys.add(secretKey(acc.serviceUrl, acc.email, what));
    }
    const list = (s as Partial<{ keys(): Thenable<string[]> }>).keys;
    if (typeof list === 'function') for (const k of await list.call(s)) if (k.startsWith(SECRET_PREFIX)) keys.add(k);
    for (const k of keep) keys.delete(k);
    for (const k of keys) await s.delete(k);
    await this.context.globalState.update(SECRET_KEYS, keep.length ? [...keep] : undefined);
  }

  /**
   * The client of the signed-in account, made on its first use (its code is loaded then); rejects
   * with AuthError when signed out.
   */
  async getClient(): Promise<SiteRevisionClient> {
    const account = this._account;
    const creds = this.credentials;
    if (this._state === 'signedOut' || !account || !creds) throw new AuthError('Site Revisions', 'signed out');
    if (this._client) return this._client;
    const generation = this.generation;
    if (this.making?.generation !== generation) this.making = { generation, client: this.makeClient(account.serviceUrl, creds) };
    const client = await this.making.client;
    if (generation !== this.generation) {
      // Signed out, another account or other settings while the code loaded: that client is not used.
      background('Closing an unused client', client.dispose());
      return this.getClient();
    }
    this.making = undefined;
    return (this._client ??= client);
  }

  /**
   * Runs a service call. An AuthError (HTTP 401) marks the session expired and asks the user
   * once to sign in again — not once per failing request — then rethrows. While the session is
   * expired nothing is sent (the refused password would be sent again and again, and an account
   * can lock after a few refusals): the call fails at once with an AuthError, until the user
   * signs in.
   */
  async call<T>(fn: (client: SiteRevisionClient) => Promise<T>): Promise<T> {
    if (this._state === 'expired') {
      this.expire();
      throw new AuthError('Site Revisions', 'the service refused the stored credentials: sign in again');
    }
    const started = ++this.calls;
    try {
      const value = await fn(await this.getClient());
      this.reportReachable(true, started);
      return value;
    } catch (e) {
      if (isOffline(e)) this.reportReachable(false, started);
      else if (isApiError(e) && e.kind !== 'cancelled') this.reportReachable(true, started);
      if (isApiError(e) && e.kind === 'auth' && this._state !== 'signedOut') {
        this.log.warn('The service no longer accepts the stored credentials (HTTP 401); nothing more is sent with them until you sign in.');
        const acc = this._account;
        if (acc) background('Remembering the refused credentials', this.context.globalState.update(EXPIRED_KEY, accountId(acc)));
        this.expire();
      }
      throw e;
    }
  }

  /** Marks the session expired and asks to sign in again, unless that message is already on screen. */
  private expire(): void {
    if (this._state !== 'expired') this.setState('expired');
    if (this.reauthPrompt) return;
    const prompt: Thenable<unknown> = showWarning(message('Site Revisions: the service did not accept your credentials. Sign in again to continue.'), vscode.l10n.t('Sign In…')).then(
      (choice) => {
        if (this.reauthPrompt !== prompt) return; // signed in meanwhile, some other way
        this.reauthPrompt = undefined;
        if (choice) background('Signing in again', vscode.commands.executeCommand('siteRevisions.signIn'));
      },
      (e: unknown) => {
        if (this.reauthPrompt === prompt) this.reauthPrompt = undefined;
        this.log.error('Showing the sign-in message failed:', e);
      },
    );
    this.reauthPrompt = prompt;
  }

  private use(account: Account, creds: Credentials): void {
    this.forgetClient();
    this._account = account;
    this.credentials = creds;
    this.log.redactor.add(creds.password);
    this.log.redactor.add(creds.apiKey);
  }

  private async makeClient(serviceUrl: string, creds: Credentials): Promise<SiteRevisionClient> {
    this.log.redactor.add(creds.password);
    this.log.redactor.add(creds.apiKey);
    return (await clientFactory()).makeClient(serviceUrl, creds, this.log, this.scheduler);
  }

  private forgetClient(): void {
    this.generation++;
    this.making = undefined;
    if (this._client) background('Closing the connections of the previous client', this._client.dispose());
    this._client = undefined;
    this.credentials = undefined;
  }

  /** Rebuilds the client after settings that shape it (time-out, CA file, system certificates) change. */
  reconfigure(): void {
    if (this._account && this.credentials) this.use(this._account, this.credentials);
  }

  private setState(s: SessionState): void {
    this._state = s;
    setContext('siteRevisions.signedIn', s !== 'signedOut');
    setContext('siteRevisions.sessionExpired', s === 'expired');
    this._onDidChange.fire(s);
  }

  override dispose(): void {
    this.forgetClient();
    super.dispose();
  }
}
