// How `npm run bench` judges a figure of the extension's own work and shows how busy the machine
// was (issue 32 §8): the event-loop rows are judged on the thread's CPU time between two 1 ms
// ticks where Node measures it (a loaded machine lengthens the loop's delay, not the work), and
// every timing row carries the load average of its step, in the table, the Markdown and --json.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LOOP_TARGETS, loopOk, loopText, medianLoop, ownLoop, type LoopDelay } from '../../bench/lib';
import { markdown, withLoad, type Row } from '../../bench/report';

const runJs = path.resolve(__dirname, '..', '..', 'bench', 'run.js');

describe('bench: own work by CPU time, the load beside every timing row', () => {
  // The loaded run: the scan's loop delay max 129 ms while its own work held the loop 7 ms at most.
  const loaded: LoopDelay = { maxMs: 129, p99Ms: 31, meanMs: 3, samples: 5000, heldMs: 7.1, heldP99Ms: 2.2 };

  it('an event-loop row is judged on the thread’s own work where measured, the delay shown beside it', () => {
    assert.equal(loopOk(loaded), true, 'a delay the machine added does not miss the target');
    assert.deepEqual(ownLoop(loaded), { maxMs: 7.1, p99Ms: 2.2, byCpu: true });
    assert.match(loopText(loaded), /^own work max 7\.1 ms, p99 2\.2 ms \(CPU time between 1 ms ticks\); loop delay max 129\.0 ms, p99 31\.0 ms$/);
    assert.equal(loopOk({ ...loaded, heldMs: LOOP_TARGETS.maxMs + 1 }), false, 'own work over the target misses it');
    assert.equal(loopOk({ ...loaded, heldP99Ms: LOOP_TARGETS.p99Ms + 1 }), false);
    // Without the thread's CPU time (Node < 23.9): the delay, as before.
    const { heldMs: _h, heldP99Ms: _p, ...noCpu } = loaded;
    assert.equal(loopOk(noCpu), false);
    assert.match(loopText(noCpu), /^loop delay max 129\.0 ms/);
    assert.equal(medianLoop([loaded, { ...loaded, heldP99Ms: 4 }, { ...loaded, heldP99Ms: 3 }]).heldP99Ms, 3);
  });

  const row = (o: Partial<Row>): Row => ({ group: 'G', id: 'g.x', name: 'a figure', measured: '1', value: 1, unit: 'ms', target: '≤ 2 ms', ok: true, ...o });

  it('the load of its step goes on every timing row (ms, ratio, %, µs), not on counts, bytes or yes/no', () => {
    for (const unit of ['ms', 'ratio', '%', 'µs']) assert.equal(withLoad(row({ unit }), 2.345).load, 2.35, unit);
    for (const unit of ['requests', 'MB', 'bytes', 'bool', 'count']) assert.equal(withLoad(row({ unit }), 2.345).load, undefined, unit);
    assert.equal(withLoad(row({ load: 1 }), 3).load, 1, 'a load already set is kept');
    assert.equal(withLoad(row({}), undefined).load, undefined);
  });

  it('the table, the Markdown and --json show it beside the figure', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-bench-load-'));
    try {
      const figures = [withLoad(row({ id: 'g.timed', name: 'a timed figure', measured: '12.0 ms' }), 3.14), withLoad(row({ id: 'g.count', name: 'a count', unit: 'requests', measured: '1' }), 3.14)];
      const machine = { date: '2026-01-01', nproc: 2, cpu: 'test CPU', node: 'v24.0.0', os: 'Linux', loadAverage: [3, 2, 1] };
      const file = path.join(dir, 'report.json');
      fs.writeFileSync(file, JSON.stringify({ machine, figures, details: {}, errors: [], targetsMissed: [] }));
      const table = spawnSync(process.execPath, [runJs, '--from', file], { encoding: 'utf8' });
      assert.equal(table.status, 0, table.stderr);
      const lines = table.stdout.split('\n');
      assert.match(lines.find((l) => l.startsWith('Figure'))!, /Figure\s+Measured\s+Target\s+Load$/);
      assert.match(lines.find((l) => l.startsWith('G: a timed figure'))!, /12\.0 ms\s+≤ 2 ms\s+ok\s+3\.1$/);
      assert.match(lines.find((l) => l.startsWith('G: a count'))!, /\sok$/);
      const json = spawnSync(process.execPath, [runJs, '--from', file, '--json'], { encoding: 'utf8' });
      assert.deepEqual((JSON.parse(json.stdout) as { figures: Row[] }).figures.map((f) => f.load), [3.14, undefined]);
      const md = markdown(figures, machine, [], []);
      assert.ok(md.includes('| Figure | Measured | Target | | Load |'), md);
      assert.ok(md.includes('| **G** — a timed figure | 12.0 ms | ≤ 2 ms | ok | 3.1 |'), md);
      assert.ok(md.includes('| a count | 1 | ≤ 2 ms | ok | — |'), md);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
