// What `npm run -s bench -- --json | …` hands on: the whole report through a pipe, however long.
// A pipe takes 64 KiB at a time; a bench that exits before the rest is written cuts its JSON off.
// The report part runs alone on saved figures (`--from FILE`), so no bench is measured here.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const runJs = path.resolve(__dirname, '..', '..', 'bench', 'run.js');

/** Runs the bench's report with `args`, its stdout a pipe read here; its exit code and everything that came through. */
function throughPipe(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runJs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

describe('bench output through a pipe (bench/run.ts)', function () {
  this.timeout(60000);
  let dir: string;
  let file: string;
  let report: { figures: { id: string; note?: string }[]; errors: string[] };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-bench-out-'));
    file = path.join(dir, 'report.json');
    // About 1.5 MB of JSON: many times what a pipe holds.
    const figures = Array.from({ length: 3000 }, (_, i) => ({
      group: 'Pipe',
      id: `pipe.row${i}`,
      name: `row ${i} ${'é'.repeat(20)}`,
      measured: `${i} ms`,
      value: i,
      unit: 'ms',
      target: '≤ 10 ms',
      ok: i % 2 === 0,
      note: `${'a note that makes the report long; '.repeat(12)}${i}`,
    }));
    report = {
      machine: { date: '2026-01-01', nproc: 2, cpu: 'test CPU', node: 'v24.0.0', os: 'Linux', loadAverage: [0, 0, 0] },
      durationSeconds: 1,
      quick: false,
      targets: {},
      figures,
      details: {},
      errors: [],
      ok: true,
      targetsMissed: figures.filter((f) => !f.ok).map((f) => f.id),
    } as never;
    fs.writeFileSync(file, JSON.stringify(report));
    assert.ok(fs.statSync(file).size > 1024 * 1024);
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('--json: the whole report arrives through the pipe and parses, then the bench exits', async () => {
    const r = await throughPipe(['--from', file, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.endsWith('}\n'), `cut off after ${r.stdout.length} characters`);
    assert.deepEqual(JSON.parse(r.stdout), report);
  });

  it('the table: every row arrives through the pipe; --strict exits 1 with targets missed', async () => {
    const r = await throughPipe(['--from', file, '--strict']);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout.split('\n');
    for (const f of report.figures) assert.ok(lines.some((l) => l.startsWith(`Pipe: row ${f.id.slice('pipe.row'.length)} `)), `${f.id} in the table (${r.stdout.length} characters arrived)`);
  });
});
