// The names the live feature is known by (package.json declares them), kept apart from its code
// so that activation registers every command, the `site-live:` file system and the Live Files
// rows while the code behind them stays in its own chunk (./register.ts).
import type { Site } from '../../core/api/types';

export const LIVE_COMPARE_VIEW = 'siteRevisions.liveCompareView';

/** Every contributed command of the feature. */
export const LIVE_COMMANDS = [
  'siteRevisions.testConnection',
  'siteRevisions.openLiveFolderAsWorkspace',
  'siteRevisions.refreshLive',
  'siteRevisions.liveCompareWithWorking',
  'siteRevisions.liveCompareWithNewest',
  'siteRevisions.compareLiveWithLocal',
  'siteRevisions.liveDrift',
  'siteRevisions.liveCompareOpenGroup',
  'siteRevisions.liveCompareCancel',
  'siteRevisions.liveCompareClear',
  'siteRevisions.chooseKeyFile',
  'siteRevisions.forgetTrust',
  'siteRevisions.forgetLivePassword',
] as const;

/** Commands of the rows themselves (not in the palette). */
export const LIVE_COMMANDS_INTERNAL = {
  cancelListing: 'siteRevisions.liveCancelListing',
  retryListing: 'siteRevisions.liveRetryListing',
} as const;

export type LiveCommand = (typeof LIVE_COMMANDS)[number] | (typeof LIVE_COMMANDS_INTERNAL)[keyof typeof LIVE_COMMANDS_INTERNAL];

/** The server types reachable from here (src/core/live/endpoint.ts maps them). */
export const LIVE_TYPES: readonly string[] = ['FTP', 'SFTP', 'WebDAV', 'AmazonS3'];

/** A folder of a live server as the Sites view shows it (the Live Files row is its root, path ''). */
export interface LiveFolderNode {
  readonly site: Site;
  readonly path: string;
}

/** The language-model tool of the feature (package.json declares it). */
export const LIVE_TOOL = 'siteRevisions_liveCompare';
