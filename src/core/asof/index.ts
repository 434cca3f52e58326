// A whole site (or a folder of it) as it was at a moment, two sites compared, and an export of
// either: the plain-Node core (no `vscode`) of the feature in src/asOf/ and of two language-model
// tools (src/features/tools/). Reads go through the revision store (src/core/model/revisionStore.ts).
export { siteAsOf, pickAsOf, filesOfScope, type AsOfFile, type AsOfProgress, type AsOfReads, type AsOfResult, type AtRevision, type ContentSink, type NotYetFile } from './asOf';
export { compareSites, type ComparePair, type CompareProgress, type CompareResult, type CompareSide } from './compare';
export { parseMoment, momentText, zoneText, MomentError } from './moment';
