// The names the History Search and Site Changes views and the language-model tools are known by
// (package.json declares them). Kept apart from the code behind them so that the extension can
// register every one at activation while that code stays in its own chunk (see ./register.ts).

export const HISTORY_VIEW = 'siteRevisions.historySearch';
export const CHANGES_VIEW = 'siteRevisions.siteChanges';

/** A search result's click (the tree items' command). */
export const OPEN_RESULT_COMMAND = 'siteRevisions.openSearchResult';
/** A changed revision's click in Site Changes. */
export const OPEN_CHANGE_COMMAND = 'siteRevisions.openSiteChange';

/** Every command the chunk registers (a unit test compares it with what the chunk registers). */
export const HISTORY_COMMANDS = [
  'siteRevisions.searchHistory',
  OPEN_RESULT_COMMAND,
  'siteRevisions.rerunSearch',
  'siteRevisions.removeSearch',
  'siteRevisions.clearSearches',
  'siteRevisions.cancelSearch',
  'siteRevisions.siteChanges',
  'siteRevisions.openChanges',
  OPEN_CHANGE_COMMAND,
  'siteRevisions.cancelSiteChanges',
  'siteRevisions.clearSiteChanges',
  'siteRevisions.restoreCheckedSearchResults',
  'siteRevisions.restoreCheckedChanges',
] as const;

export const TOOL_NAMES = {
  listSites: 'siteRevisions_listSites',
  listFiles: 'siteRevisions_listFiles',
  listRevisions: 'siteRevisions_listRevisions',
  getRevision: 'siteRevisions_getRevision',
  searchHistory: 'siteRevisions_searchHistory',
  siteChanges: 'siteRevisions_siteChanges',
  folderStatus: 'siteRevisions_folderStatus',
  lineHistory: 'siteRevisions_lineHistory',
  siteAsOf: 'siteRevisions_siteAsOf',
  compareSites: 'siteRevisions_compareSites',
} as const;

/** A command's handler as the loaded code hands it over (src/features/history/register.ts registers it under its id). */
export type CommandHandler = (...args: never[]) => unknown;
