// The names the working-copy feature (./index.ts) is known by in package.json, apart from its code
// so that activation registers every command (./register.ts) without loading that code.

/** The id of the source controls (`scmProvider == siteRevisions` in when clauses). */
export const SCM_ID = 'siteRevisions';

/** The Line History view. */
export const LINE_HISTORY_VIEW = 'siteRevisions.lineHistory';

/** Every command of the feature (a unit test compares it with package.json). */
export const SCM_COMMANDS = [
  'siteRevisions.scm.refresh',
  'siteRevisions.scm.restoreNewest',
  'siteRevisions.scm.compareWithRevision',
  'siteRevisions.scm.openFile',
  'siteRevisions.showLineHistory',
  'siteRevisions.openLineHistoryEntry',
  'siteRevisions.clearLineHistory',
] as const;

export type ScmCommand = (typeof SCM_COMMANDS)[number];
