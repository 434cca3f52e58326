// History Search and Site Changes (issue 13): the plain-Node core. No `vscode` import anywhere
// under src/core/search (eslint guards it); user-facing messages go through a `t: Translate`
// parameter (src/core/util/l10n.ts).
//
// The API, for the views and commands built on it:
//
//   compileQuery(query, t)            → Matcher (count, first match + preview) or a QueryError
//                                       for the input box (query.ts)
//   searchRevisions(site, path, revisions, matcher, mode)
//                                     → one file's hits: 'changes' (count differs from the
//                                       revision before: +added / −removed) or 'contains'
//                                       (history.ts; pure, no I/O)
//   searchHistory({ scope, source, schedule, concurrency, signal, query, mode, budget, onResult, onProgress })
//                                     → streams FileSearchResult per file, resolves with a
//                                       summary (scan.ts); searchHistoryIterable: the same as
//                                       `for await`. Each file is matched on a worker thread
//                                       within a time budget (offThread.ts, searchWorker.ts):
//                                       over it, a SearchTimeoutError; Cancel ends it at once
//   scanSiteChanges({ scope, source, schedule, filter, onFile, onProgress })
//                                     → SiteChangesBuilder: days() → files → revisions, files()
//                                       with the "Open Changes" pair, authors() (siteChanges.ts)
//
//   hitLabel, progressLabel, periodLabel, dayLabel
//                                     → the views' words ("added 2", "132 / 1,840 files",
//                                       "Last 7 days", "Yesterday"), translated (labels.ts)
//
// What the extension provides (source.ts): a HistorySource (file list, revision list, every
// revision's content of a file in one go) and a Schedule. The extension's are
// storeSource(client, store) (store.ts: the disk store of src/core/store behind the client) and
// directSchedule with a client made with the request scheduler (src/core/scheduler), which gives each
// request its slot at the background priority the sources forward. clientSource is the same
// without a store.
export { compileQuery, crlfAwareEnd, PREVIEW_BEFORE, PREVIEW_MAX, QueryError, type Matcher, type MatchPreview, type SearchQuery } from './query';
export { oldestFirst, searchRevisions, type FileSearchResult, type RevisionHit, type RevisionText, type SearchMode } from './history';
export { budgetMs, DEFAULT_BUDGET, endIdleSearchThread, OffThreadSearch, searchThreads, SearchTimeoutError, type TimeBudget } from './offThread';
export {
  parseDay,
  periodStart,
  PeriodError,
  SiteChangesBuilder,
  Zone,
  ZoneError,
  type ChangesDay,
  type ChangesFilter,
  type DatedRevision,
  type DayFile,
  type FileChanges,
  type Period,
} from './siteChanges';
export { dayLabel, hitLabel, periodLabel, progressLabel } from './labels';
export { storeSource } from './store';
export { abortError, clientSource, directSchedule, revisionStoreSource, type HistorySource, type RevisionMeta, type RevisionReads, type Schedule, type SourceCallOptions, type StoreReads } from './source';
export {
  DEFAULT_CONCURRENCY,
  filesInScope,
  isFileError,
  runScan,
  scanSiteChanges,
  searchHistory,
  searchHistoryIterable,
  type FileFailure,
  type HistorySearchOptions,
  type HistorySearchSummary,
  type ScanOptions,
  type ScanProgress,
  type ScanSummary,
  type Scope,
  type SiteChangesOptions,
  type SiteChangesSummary,
} from './scan';
