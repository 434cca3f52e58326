// Revision blame — which revision introduced each line of a working file (plain Node; no
// `vscode`: the editor features build on this API). In the extension this folder is its own
// chunk, loaded on first use through `loadBlame()` (./load.ts) like undici, so
// activation never parses it.
//
// WHAT IT COMPUTES
// Each line of the working text is attributed by diffing the revisions oldest → newest and then
// the newest → the working text (each diff a longest common subsequence of lines, see diff.ts):
// a line kept by a diff keeps the attribution it had; a line not kept is introduced there.
// Revisions are named by their index in the history, oldest = 0; the caller keeps the list
// (ids, dates, authors) and maps the index back.
//   - origin 'before', revision 0: the line is in the oldest revision given and unchanged since.
//     It may be older: the history kept does not say whether that revision or an earlier one
//     introduced it, so it is never shown as "introduced by the oldest revision". Hover text:
//     "before the oldest revision". It has no previous revision to compare with.
//   - origin 'revision', revision r ≥ 1: revision r introduced it (it is not kept from r − 1);
//     `previous` is r − 1, the revision "Compare with Its Previous Revision" opens against r.
//   - origin 'local', revision LOCAL (-1): the working text introduced it — it is not kept from
//     the newest revision ("not in any revision (local change)"); `previous` is the newest.
// Consequences, each covered by test/unit/blame.attribution.test.ts:
//   - a line deleted and later added again is attributed to the revision that added it again;
//   - a moved block: the diff keeps the larger of what moved and what it moved past, the other
//     side is attributed to the revision that moved it (as `git blame` without -M);
//   - repeated lines ("}", "") are kept where a longest common subsequence keeps them; when
//     several do, which copy stays is the diff's choice (either is a correct blame);
//   - lines are the editor's: "\n", "\r\n" and a lone "\r" end a line, terminators and a leading
//     byte order mark are not compared, so CRLF ↔ LF and adding or removing the final newline
//     re-attribute nothing but the empty last line (lines.ts).
//
// API (all synchronous; nothing is requested or stored here)
//   const blame = await loadBlame();                         // from ./load, in the extension
//   let history = blame.BlameHistory.of(textsOldestFirst);  // ~100 ms for 5,000 lines × 50
//   let lines = history.attribute(document.getText());      // one diff: re-run on every edit
//   lines.blameOf(i)      → { origin, revision, previous }  // the hover of line i
//   lines.revisionOf(i)   → revision index or LOCAL
//   lines.runs()          → [{ start, end, revision }]      // decorations, top to bottom
//   history = history.extend(newerText);  // a newer revision on refresh: one more diff, not all
//   history.newest()      → the attribution of the newest revision's own lines
// A history keeps only the newest revision's lines with their ids and attribution (not the older
// texts), and is immutable: `extend` returns a new one, so an attribution already shown stays
// valid. To stay responsive on a long history, build it step by step instead of with `of` —
// `BlameHistory.empty().extend(t0).extend(t1)…` gives the same result — and yield between steps.
// When the history changes other than by newer revisions (an older one pruned, a revision
// replaced), build it again: indices are positions in the list it was built from.
//
// Cost (bench/blameChild.ts; README, Benchmarks): `of` is linear in the lines with one diff per
// revision; `attribute` after a one-line edit compares each line once with the newest revision's
// and diffs only what differs — about a millisecond for 5,000 lines.
export { Attribution, BlameHistory, LOCAL, type BlameOptions, type BlameRun, type LineBlame, type LineOrigin } from './blame';
export { commonRuns, myersLineDiff, type LineDiff } from './diff';
export { joinLines, lineContents, splitLines, type SplitText } from './lines';
