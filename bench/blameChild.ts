// One sample of the revision-blame figures, in a fresh Node process (the first call of a process
// is the figure: the editor blames a file once when blame is turned on, then re-attributes):
//
//   node out/bench/blameChild.js [default | sliced | CANDIDATE]
//
// The workload (WORKLOAD below, test/unit/helpers/blameHistory.ts): a 5,000-line code-like file
// with 50 revisions, each changing about 3 % of the lines (edits in place, insertions,
// deletions, moved blocks, lines coming back), contents in memory.
//   default    the blame as the extension runs it (src/core/blame, loaded through loadBlame()):
//              the whole history; re-attribution after a one-line edit; one newer revision
//              taken in with extend();
//   sliced     the history built as Toggle Revision Blame builds it (BlameHistory.build: the
//              thread given back between revisions), with the event loop's delay sampled;
//   CANDIDATE  a package of bench/diffCandidates.ts under the same blame code, and the package
//              alone on the whole files (no reductions): time and lines kept (a minimal diff
//              keeps the most).
// Prints one JSON line on stdout.
import { performance } from 'node:perf_hooks';
import { loadBlame } from '../src/core/blame/load';
import type { LineDiff } from '../src/core/blame/diff';
import { generateHistory, replaceLine } from '../test/unit/helpers/blameHistory';
import { CANDIDATES } from './diffCandidates';
import { sampleLoopDelay, type LoopDelay } from './lib';

const WORKLOAD = { lines: 5000, revisions: 50, changeFraction: 0.03, seed: 14 };
const WARM_RUNS = 3;
const EDITS = 21;

export interface BlameSample {
  diff: string;
  lines: number;
  revisions: number;
  /** Loading the blame module (and the candidate's package). */
  loadMs: number;
  /** BlameHistory.of over the whole history: first call of the process, then the median of the next runs. */
  coldMs: number;
  /** The CPU time of the process during that first call (less sensitive than coldMs to other processes on the machine). */
  coldCpuMs: number;
  warmMs: number;
  /** Lines kept by the diffs of the 49 steps (the same for every minimal diff). */
  keptLines: number;
  /** The package alone on the whole files (each step's two revisions as line ids; no reductions). */
  raw: { coldMs: number; warmMs: number; keptLines: number };
  /** default only: attribute() of the newest revision with one line edited (first call; median of the others). */
  attribute?: { coldMs: number; warmMs: number; edits: number };
  /** default only: a history of 49 revisions extended by the 50th (first call). */
  extendMs?: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function time<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

export interface SlicedBlameSample {
  lines: number;
  revisions: number;
  /** BlameHistory.build (what the extension runs), first call of the process: from the call to the history. */
  ms: number;
  loop: LoopDelay;
}

/** The blame as Toggle Revision Blame builds it (in slices), the first of a process, with the event loop sampled meanwhile. */
async function sliced(texts: string[]): Promise<SlicedBlameSample> {
  const blame = await loadBlame();
  const loop = sampleLoopDelay();
  const t0 = performance.now();
  const history = await blame.BlameHistory.build(texts);
  const ms = performance.now() - t0;
  const delay = loop.stop();
  if (history.newest().revisions.join() !== blame.BlameHistory.of(texts).newest().revisions.join()) throw new Error('build gave another attribution than of');
  return { lines: WORKLOAD.lines, revisions: WORKLOAD.revisions, ms, loop: delay };
}

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'default';
  const g = generateHistory(WORKLOAD);
  const texts = g.revisions;
  if (name === 'sliced') {
    process.stdout.write(JSON.stringify(await sliced(texts)) + '\n');
    return;
  }

  const t0 = performance.now();
  const blame = await loadBlame();
  const diff: LineDiff | undefined = name === 'default' ? undefined : CANDIDATES[name]?.();
  if (name !== 'default' && !diff) throw new Error(`unknown candidate ${name}`);
  const loadMs = performance.now() - t0;
  const options = diff ? { diff } : {};

  // ---- the whole history
  const cpu0 = process.cpuUsage();
  const cold = time(() => blame.BlameHistory.of(texts, options));
  const cpu = process.cpuUsage(cpu0);
  const warm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) warm.push(time(() => blame.BlameHistory.of(texts, options)).ms);
  // Lines kept at each step: those of revision k not attributed to k.
  let keptLines = 0;
  let step = blame.BlameHistory.empty(options);
  for (const [k, t] of texts.entries()) {
    step = step.extend(t);
    if (k > 0) for (const r of step.newest().revisions) if (r !== k) keptLines++;
  }
  const inner = diff ?? blame.myersLineDiff;

  // ---- the package alone on whole files
  const ids = lineIds(g.lines);
  const rawPass = () => {
    let kept = 0;
    for (let k = 1; k < ids.length; k++) inner(ids[k - 1]!, ids[k]!, (_x, _y, n) => (kept += n));
    return kept;
  };
  const rawCold = time(rawPass);
  const rawWarm: number[] = [];
  for (let i = 0; i < 2; i++) rawWarm.push(time(rawPass).ms);

  const out: BlameSample = {
    diff: name,
    lines: WORKLOAD.lines,
    revisions: WORKLOAD.revisions,
    loadMs,
    coldMs: cold.ms,
    coldCpuMs: (cpu.user + cpu.system) / 1000,
    warmMs: median(warm),
    keptLines,
    raw: { coldMs: rawCold.ms, warmMs: median(rawWarm), keptLines: rawCold.value },
  };

  if (name === 'default') {
    // ---- re-attribution after a one-line edit, at places spread over the file
    const history = cold.value;
    const newest = texts[texts.length - 1]!;
    const count = g.lines[g.lines.length - 1]!.length;
    const times: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      const at = Math.floor(((i + 0.5) * count) / EDITS);
      const text = replaceLine(newest, at, `  edited in the editor ${i}`);
      const r = time(() => history.attribute(text));
      const local = Array.from(r.value.revisions).filter((x) => x === blame.LOCAL).length;
      if (local !== 1 || r.value.revisionOf(at) !== blame.LOCAL) throw new Error(`a one-line edit at ${at} gave ${local} local lines`);
      times.push(r.ms);
    }
    out.attribute = { coldMs: times[0]!, warmMs: median(times.slice(1)), edits: EDITS };

    // ---- one newer revision, taken in without blaming everything again
    const older = blame.BlameHistory.of(texts.slice(0, -1));
    const extended = time(() => older.extend(newest));
    if (extended.value.newest().revisions.join() !== history.newest().revisions.join()) throw new Error('extend gave another attribution than blaming the whole history');
    out.extendMs = extended.ms;
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

/** Each revision's lines as ids (equal lines, equal ids), for the packages alone. */
function lineIds(revisions: string[][]): Int32Array[] {
  const idOf = new Map<string, number>();
  return revisions.map((ls) => {
    // The generator's lines plus the empty last line after the final newline, as blame sees them.
    const all = [...ls, ''];
    const ids = new Int32Array(all.length);
    all.forEach((l, i) => {
      let id = idOf.get(l);
      if (id === undefined) idOf.set(l, (id = idOf.size));
      ids[i] = id;
    });
    return ids;
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`blameChild: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
