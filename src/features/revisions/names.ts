// The revision commands' ids: registered at activation (./register.ts), handled by ./commands.ts
// once the feature is loaded. package.json contributes all but the retry row's.

/** The retry row under a site or folder whose load failed. */
export const RETRY_COMMAND = 'siteRevisions.revisions.retry';

export const REVISION_COMMANDS = [
  'siteRevisions.openRevision',
  'siteRevisions.compareWithWorking',
  'siteRevisions.compareWithPrevious',
  'siteRevisions.selectForCompare',
  'siteRevisions.compareWithSelected',
  'siteRevisions.compareSelectedRevisions',
  'siteRevisions.restoreRevision',
  'siteRevisions.copyRevisionContent',
  'siteRevisions.mapFolder',
  'siteRevisions.loadMoreRevisions',
  'siteRevisions.revisionsOfActiveFile',
  RETRY_COMMAND,
] as const;

export type RevisionCommand = (typeof REVISION_COMMANDS)[number];
