// What activation registers for a whole site as it was (./index.ts): its commands, whose code is
// imported on first use (its two views are made then too; until then they are hidden).
//
// Named siteAsOf, not asOf: src/core/asof is the plain-Node core, and two folders whose names differ
// only in case are one folder on macOS and Windows.
import * as vscode from 'vscode';
import { feature, lazyCommand } from '../../workbench/feature';
import type { SiteAsOfDeps } from './index';
import type { Revisions } from '../revisions/register';

/** Every command of the feature (package.json contributes them). */
export const SITE_AS_OF_COMMANDS = [
  'siteRevisions.siteAsOf',
  'siteRevisions.siteAsOfBefore',
  'siteRevisions.asOfCompareWorking',
  'siteRevisions.asOfCompareNewest',
  'siteRevisions.asOfRestore',
  'siteRevisions.asOfExport',
  'siteRevisions.asOfCancel',
  'siteRevisions.asOfClear',
  'siteRevisions.compareSites',
  'siteRevisions.compareSitesOpen',
  'siteRevisions.compareSitesCancel',
  'siteRevisions.compareSitesClear',
] as const;

export type SiteAsOfCommand = (typeof SITE_AS_OF_COMMANDS)[number];

export function registerSiteAsOf(deps: Omit<SiteAsOfDeps, 'revisions'> & { revisions: Revisions }, subscriptions: vscode.Disposable[]): void {
  const load = feature(async () => {
    const [m, revisions] = await Promise.all([import('./index.js'), deps.revisions.load()]);
    return m.activateSiteAsOf({ ...deps, revisions }, subscriptions);
  });
  subscriptions.push(...SITE_AS_OF_COMMANDS.map((id) => lazyCommand(id, load, (f, ...args) => (f[id] as (...a: unknown[]) => unknown)(...args))));
}
