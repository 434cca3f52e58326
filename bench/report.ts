// The benchmark report: the figures with their targets, rendered as a terminal table, as
// Markdown for docs/benchmarks.md (between <!-- bench:start --> and <!-- bench:end -->), or as JSON.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './lib';

export interface Row {
  group: string;
  /** Stable key (JSON consumers). */
  id: string;
  name: string;
  /** The figure as shown (medians unless said otherwise). */
  measured: string;
  /** The number behind `measured` (for JSON), when there is one. */
  value: number | null;
  unit: string;
  /** e.g. "≤ 1.05"; '' when the figure is only reported. */
  target: string;
  /** true / false against the target; null when there is none or it could not be measured. */
  ok: boolean | null;
  note?: string;
  /**
   * The highest 1-minute load average (os.loadavg) sampled while the figure was measured (its
   * step's run), on a timing row: how busy the machine was. A figure of the extension's own work
   * is judged on its thread's CPU time where it can be (bench/lib.ts), so it does not depend on it.
   */
  load?: number;
}

/** The units of timing rows: they get the load average of their step. */
const TIMING_UNITS = new Set(['ms', 'ratio', '%', 'µs']);

/** `r` with `load` set when it is a timing row that has none yet. */
export function withLoad(r: Row, load: number | undefined): Row {
  return load !== undefined && r.load === undefined && TIMING_UNITS.has(r.unit) ? { ...r, load: Math.round(load * 100) / 100 } : r;
}

const loadText = (r: Row) => (r.load !== undefined ? r.load.toFixed(1) : '');

export interface Machine {
  date: string;
  nproc: number;
  cpu: string;
  node: string;
  os: string;
  loadAverage: number[];
}

/** The file whose table `npm run bench -- --write-docs` refreshes. */
export const BENCH_DOC = path.join(repoRoot, 'docs', 'benchmarks.md');
export const START = '<!-- bench:start -->';
export const END = '<!-- bench:end -->';

function status(r: Row): string {
  if (r.ok === null) return r.target ? 'n/a' : '—';
  return r.ok ? 'ok' : 'MISSED';
}

/** A plain-text table for the terminal. */
type Mod = { path: string; bytes: number; output?: string };

const where = (m: Mod) => (m.output ? ` (${m.output})` : '');

export function textTable(rows: Row[], machine: Machine, modules: Mod[]): string {
  const head = ['Figure', 'Measured', 'Target', '', 'Load'];
  const body = rows.map((r) => [`${r.group}: ${r.name}`, r.measured, r.target, status(r), loadText(r)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [
    `Site Revisions benchmarks — ${machine.date}, ${machine.nproc} × ${machine.cpu}, Node ${machine.node}, load ${machine.loadAverage.map((l) => l.toFixed(1)).join(' ')}`,
    '',
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...body.map(line),
  ];
  if (modules.length) {
    out.push('', 'Biggest modules of the production build (bytes in the minified output; dist/meta.json):');
    for (const m of modules) out.push(`  ${kb(m.bytes).padStart(9)}  ${m.path}${where(m)}`);
  }
  const missed = rows.filter((r) => r.ok === false);
  out.push('', missed.length ? `${missed.length} target(s) missed: ${missed.map((r) => r.id).join(', ')}` : 'Every target met.');
  return out.join('\n');
}

const esc = (s: string) => s.replace(/\|/g, '\\|');

/** The Markdown block that goes between the markers of docs/benchmarks.md. */
export function markdown(rows: Row[], machine: Machine, modules: Mod[], packages: Mod[]): string {
  const out = [
    `Measured ${machine.date} on ${machine.nproc} × ${esc(machine.cpu)} (${machine.os}), Node ${machine.node}; load average at the start ${machine.loadAverage.map((l) => l.toFixed(1)).join(' ')} (a shared machine). Medians of several runs. Load: the highest 1-minute load average while the figure was measured.`,
    '',
    '| Figure | Measured | Target | | Load |',
    '|---|---|---|---|---|',
  ];
  let group = '';
  for (const r of rows) {
    const g = r.group !== group ? `**${esc(r.group)}** — ` : '';
    group = r.group;
    out.push(`| ${g}${esc(r.name)} | ${esc(r.measured)} | ${esc(r.target) || '—'} | ${status(r)} | ${loadText(r) || '—'} |`);
  }
  if (modules.length) {
    out.push('', 'The 10 biggest modules of the production build (bytes each takes in the minified output, from esbuild\'s `dist/meta.json`):', '', '| Module | In | Size |', '|---|---|---|');
    for (const m of modules) out.push(`| \`${esc(m.path)}\` | ${m.output ? `\`${esc(m.output)}\`` : ''} | ${kb(m.bytes)} |`);
    const shown = packages.filter((p) => !p.path.includes(':') && p.bytes >= 1024);
    if (shown.length) out.push('', `By package: ${shown.slice(0, 4).map((p) => `${p.path} ${kb(p.bytes)}`).join(', ')}.`);
  }
  return out.join('\n');
}

/** Replaces the block between the markers of `file`; throws when they are missing. */
export function writeBenchTable(file: string, block: string): void {
  const text = fs.readFileSync(file, 'utf8');
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${file} has no ${START} … ${END} block`);
  const next = `${text.slice(0, a + START.length)}\n${block}\n${text.slice(b)}`;
  if (next !== text) fs.writeFileSync(file, next);
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
