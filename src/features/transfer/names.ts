// The names the transfer feature (issue 34) is known by in package.json, apart from its code so
// that activation registers every command, the views and the kept copies' file system while the
// code behind them stays in its own chunk (./register.ts).

/** The Transfers view: a sync's preview, and the conflicts set aside by any transfer. */
export const TRANSFERS_VIEW = 'siteRevisions.transfersView';
/** The "Overwritten on the Server" view: the kept copies. */
export const OVERWRITTEN_VIEW = 'siteRevisions.overwrittenView';
/** Kept copies opened for a diff (read-only): `site-kept:/<path>?{"i":<id>,"a":<account tag>}`. */
export const KEPT_SCHEME = 'site-kept';

/** Every contributed command of the feature (a unit test compares it with package.json). */
export const TRANSFER_COMMANDS = [
  'siteRevisions.upload',
  'siteRevisions.download',
  'siteRevisions.sync',
  'siteRevisions.syncRun',
  'siteRevisions.syncIncludeDeletes',
  'siteRevisions.syncLeaveDeletes',
  'siteRevisions.syncReplan',
  'siteRevisions.transfersClear',
  'siteRevisions.resolveConflict',
  'siteRevisions.overwrittenCompareLive',
  'siteRevisions.overwrittenCompareWorking',
  'siteRevisions.overwrittenPutBack',
  'siteRevisions.overwrittenDelete',
  'siteRevisions.overwrittenRefresh',
  'siteRevisions.conflictOverwrite',
  'siteRevisions.conflictTakeTheirs',
  'siteRevisions.uploadQueue',
  'siteRevisions.uploadOnSaveForSite',
] as const;

export type TransferCommand = (typeof TRANSFER_COMMANDS)[number];

/** Where the answer to "upload on save for this site?" is kept (globalState, per account and site: 'yes' | 'no'). */
export const UPLOAD_ON_SAVE_ANSWERS = 'siteRevisions.uploadOnSaveAnswers';
/**
 * The site-import feature's record of `upload_on_save` for imported sites whose value the service
 * did not keep (globalState `siteRevisions.uploadOnSave`: { '<account key>#<site id>': '0' | '1' };
 * branch site-import, src/features/siteImport/uploadOnSave.ts). Read here, never written.
 */
export const UPLOAD_ON_SAVE_IMPORTED = 'siteRevisions.uploadOnSave';
