// Sign in / sign out commands. Sign-in asks for the service URL, email, password and an optional
// API key, verifies them with a real call, and only then stores them (secrets in SecretStorage).
import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { isApiError } from '../../core/api/errors';
import type { Credentials } from '../../core/api/types';
import { readSettings, setServiceUrl } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import { message, plain, showError, showInfo } from '../../workbench/messages';
import { describeError, type Notifier } from '../../workbench/notify';
import { background } from '../../core/util/background';
import { isLoopbackHost } from '../../core/api/url';
import { normalizeServiceUrl, type Session } from './session';

export interface SignInArgs {
  serviceUrl: string;
  email: string;
  password: string;
  apiKey?: string;
}

async function ask(opts: vscode.InputBoxOptions): Promise<string | undefined> {
  return vscode.window.showInputBox({ ignoreFocusOut: true, ...opts });
}

/** Prompts for what is missing; keeps what the user typed when a step is retried. */
async function promptCredentials(session: Session, prev?: Partial<SignInArgs>): Promise<SignInArgs | undefined> {
  const serviceUrl = await ask({
    title: vscode.l10n.t('Sign in to Site Revisions ({0}/{1})', 1, 4),
    prompt: vscode.l10n.t('Service URL'),
    placeHolder: 'https://example.com',
    value: prev?.serviceUrl ?? (readSettings().serviceUrl || session.account?.serviceUrl || ''),
    validateInput: (v) => {
      const n = normalizeServiceUrl(v);
      return 'error' in n ? n.error : undefined;
    },
  });
  if (serviceUrl === undefined) return undefined;
  const email = await ask({
    title: vscode.l10n.t('Sign in to Site Revisions ({0}/{1})', 2, 4),
    prompt: vscode.l10n.t('Email address'),
    value: prev?.email ?? session.account?.email ?? '',
    validateInput: (v) => (/^\S+@\S+$/.test(v.trim()) ? undefined : vscode.l10n.t('Enter the email address of your account')),
  });
  if (email === undefined) return undefined;
  const password = await ask({
    title: vscode.l10n.t('Sign in to Site Revisions ({0}/{1})', 3, 4),
    prompt: vscode.l10n.t('Password for {0}', email.trim()),
    password: true,
    value: prev?.password ?? '',
    validateInput: (v) => (v ? undefined : vscode.l10n.t('Enter your password')),
  });
  if (password === undefined) return undefined;
  const apiKey = await ask({
    title: vscode.l10n.t('Sign in to Site Revisions ({0}/{1})', 4, 4),
    prompt: vscode.l10n.t('API key (optional: leave empty if your service does not use one)'),
    password: true,
    value: prev?.apiKey ?? '',
  });
  if (apiKey === undefined) return undefined;
  return { serviceUrl, email: email.trim(), password, ...(apiKey.trim() ? { apiKey: apiKey.trim() } : {}) };
}

export async function signInWith(session: Session, args: SignInArgs): Promise<void> {
  const creds: Credentials = { email: args.email, password: args.password, ...(args.apiKey ? { apiKey: args.apiKey } : {}) };
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing in to Site Revisions…'), cancellable: true },
    (_p, token) => session.signIn(args.serviceUrl, creds, token),
  );
  // Remember the URL the session normalized and verified, for the next sign-in prompt.
  const url = session.account?.serviceUrl;
  if (url && readSettings().serviceUrl !== url) await setServiceUrl(url);
}

export function registerAuthCommands(session: Session, log: Log): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('siteRevisions.signIn', async (args?: SignInArgs) => {
      if (args && typeof args === 'object' && typeof args.serviceUrl === 'string') {
        // Programmatic sign-in (automation and tests): errors propagate to the caller.
        await signInWith(session, args);
        return true;
      }
      let prev: Partial<SignInArgs> | undefined;
      for (;;) {
        const input = await promptCredentials(session, prev);
        if (!input) return false;
        try {
          await signInWith(session, input);
          background('Showing the sign-in message', showInfo(message('Signed in to Site Revisions as {0}.', plain(input.email))));
          return true;
        } catch (e) {
          // The user cancelled the check (the progress notification's Cancel): nothing to report.
          if (isApiError(e) && e.kind === 'cancelled') {
            log.info('Sign-in cancelled.');
            return false;
          }
          const d = describeError(e);
          log.warn(`Sign-in failed: ${d.message}`);
          prev = input;
          const tryAgain = vscode.l10n.t('Try Again');
          const showLog = vscode.l10n.t('Show Log');
          const again = await showError(message('Sign-in failed: {0}', plain(d.message)), tryAgain, showLog);
          if (again === showLog) log.show();
          if (again !== tryAgain) return false;
        }
      }
    }),
    vscode.commands.registerCommand('siteRevisions.signOut', async () => {
      await session.signOut();
    }),
  ];
}

/**
 * The start of a session at activation: the remembered account (when its secrets are still in
 * SecretStorage), then the development sign-in below. Never rejects: a failure (the secret
 * storage cannot be read…) is shown and logged like any other, and the user stays signed out.
 */
export async function startSession(session: Session, log: Log, notifier: Notifier): Promise<void> {
  try {
    await session.restore();
    await autoSignIn(session, log);
  } catch (e) {
    notifier.error(message('Could not restore the Site Revisions session'), e);
  }
}

/**
 * Development convenience for `npm start` and the screenshot script: when the environment names a
 * JSON file {serviceUrl,email,password} and the URL is on this machine, sign that demo account in.
 */
export async function autoSignIn(session: Session, log: Log): Promise<void> {
  const file = process.env.SITE_REVISIONS_AUTOSIGNIN;
  if (!file || session.state !== 'signedOut') return;
  try {
    const args = JSON.parse(readFileSync(file, 'utf8')) as SignInArgs;
    if (!isLoopbackHost(new URL(args.serviceUrl).hostname)) {
      log.warn('SITE_REVISIONS_AUTOSIGNIN ignored: it only signs in to a service on this machine.');
      return;
    }
    await signInWith(session, args);
  } catch (e) {
    log.warn(`Automatic demo sign-in failed: ${describeError(e).message}`);
  }
}
