// Where a live server's password (or an S3 secret key, or a key file's passphrase) comes from:
// 1. a value given directly (the site form's password, typed and not saved: Test Connection);
// 2. what the person typed in this window, or chose to remember on this computer (SecretStorage,
//    per account and site): they typed it because the stored one was missing or refused;
// 3. the site's stored password, when usable as it is (MappedSite.storedPassword: not empty, not
//    encrypted with a ShiftEdit master password);
// 4. else, or after the server refused it, the person is asked (a password input), and then
//    whether to remember it on this computer. Nothing is ever written to the service.
// A password typed here lives in memory for the window's life (this site only), and in
// SecretStorage only if the person chose "Remember on this computer"; a refusal by the server
// forgets a remembered one. Every value goes into the log's redactor before anything can log it.
import * as vscode from 'vscode';
import type { LiveSecrets } from '../../core/live';
import type { Log } from '../../workbench/log';

type Kind = 'password' | 'passphrase';

/** SecretStorage key of a remembered value (the account tag and the site id: no name, no host). */
export function secretKey(kind: Kind, account: string, siteId: string): string {
  return `siteRevisions.live.${kind}:${account}:${siteId}`;
}

export interface SiteSecretsOptions {
  secrets: vscode.SecretStorage;
  log: Log;
  account: string;
  siteId: string;
  /** The site's name, for the prompts. */
  siteName: string;
  /** The site's stored password when usable (see the header): read when first needed (the service's list has it; a cached list does not). */
  stored?: () => Promise<string | undefined>;
  /** Given directly (the form's unsaved password): used first, never remembered. */
  direct?: string | undefined;
  /** What the site's definition says about its password, for the prompt. */
  issue?: 'missing' | 'encrypted' | undefined;
  /** Whether the prompt may be shown (false: a background check, which gives up instead). */
  interactive?: boolean;
  /** The S3 secret access key is asked for instead of a password. */
  secretKeyLabel?: boolean;
}

/** The values typed in this window, by secret key (memory only). */
const typed = new Map<string, string>();

/** Forgets what this window holds (sign-out, another account). */
export function forgetTyped(): void {
  typed.clear();
}

/** Forgets what is remembered for a site on this computer, and in this window. */
export async function forgetRemembered(secrets: vscode.SecretStorage, account: string, siteId: string): Promise<void> {
  for (const kind of ['password', 'passphrase'] as const) {
    const k = secretKey(kind, account, siteId);
    typed.delete(k);
    await secrets.delete(k);
  }
}

export function siteSecrets(o: SiteSecretsOptions): LiveSecrets {
  let directUsed = false;
  let storedUsed = false;
  const get = async (kind: Kind, reason: 'login' | 'refused', what: string): Promise<string | undefined> => {
    const key = secretKey(kind, o.account, o.siteId);
    if (reason === 'refused') {
      // The last one was refused: it is not offered again.
      typed.delete(key);
      await o.secrets.delete(key).then(undefined, () => undefined);
    } else {
      if (kind === 'password' && o.direct !== undefined && !directUsed) {
        directUsed = true;
        o.log.redactor.add(o.direct);
        o.log.info(`Live server of site ${o.siteId}: the password typed in the form is used`);
        return o.direct;
      }
      // What the person typed (because the stored one was refused or missing) comes before it.
      const known = typed.get(key) ?? (await o.secrets.get(key));
      if (known) {
        o.log.redactor.add(known);
        o.log.info(`Live server of site ${o.siteId}: the ${kind} entered on this computer is used`);
        return known;
      }
      if (kind === 'password' && o.stored && !storedUsed) {
        storedUsed = true;
        const stored = await o.stored();
        if (stored) {
          o.log.redactor.add(stored);
          o.log.info(`Live server of site ${o.siteId}: the site's saved password is used`);
          return stored;
        }
      }
    }
    if (o.interactive === false) return undefined;
    o.log.info(`Live server of site ${o.siteId}: asking for the ${kind} (${reason === 'refused' ? 'the last one was refused' : o.issue ?? 'none known'})`);
    const value = await vscode.window.showInputBox({
      title: what,
      prompt: promptText(kind, reason, o),
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined || value === '') return undefined;
    o.log.redactor.add(value);
    typed.set(key, value);
    const remember = vscode.l10n.t('Remember on this computer');
    const session = vscode.l10n.t('Use until VS Code closes');
    const pick = await vscode.window.showQuickPick(
      [
        { label: session, detail: vscode.l10n.t('Kept in memory for this window only.') },
        { label: remember, detail: vscode.l10n.t('Kept in VS Code\'s secret storage on this computer (the operating system\'s keychain). Never sent to the Site Revisions service.') },
      ],
      { title: vscode.l10n.t('Keep this {0}?', kind === 'password' ? (o.secretKeyLabel ? vscode.l10n.t('secret key') : vscode.l10n.t('password')) : vscode.l10n.t('passphrase')), ignoreFocusOut: true },
    );
    if (pick?.label === remember) await o.secrets.store(key, value);
    return value;
  };
  return {
    password: ({ reason }) => get('password', reason, o.secretKeyLabel ? vscode.l10n.t('Secret access key of “{0}”', o.siteName) : vscode.l10n.t('Password of “{0}”', o.siteName)),
    passphrase: ({ reason }) => get('passphrase', reason, vscode.l10n.t('Passphrase of the key file of “{0}”', o.siteName)),
  };
}

function promptText(kind: Kind, reason: 'login' | 'refused', o: SiteSecretsOptions): string {
  if (reason === 'refused') return kind === 'password' ? vscode.l10n.t('The server refused the login. Enter the password again (it is not sent to the Site Revisions service).') : vscode.l10n.t('The key file\'s passphrase was refused. Enter it again.');
  if (kind === 'passphrase') return vscode.l10n.t('The key file is encrypted: enter its passphrase.');
  if (o.issue === 'encrypted') return vscode.l10n.t('The site\'s password is stored encrypted with your master password, which this extension cannot read. Enter the server\'s password (it is not sent to the Site Revisions service).');
  return vscode.l10n.t('The site has no saved password. Enter the server\'s password (it is not sent to the Site Revisions service).');
}
