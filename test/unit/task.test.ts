// scripts/task.mjs before any task: a node_modules installed before package.json named more
// packages (a pull added dependencies, no `npm ci` since) stops at once with the next step, not
// with tsc's "Cannot find module" pages. A copy of the runner in a folder of its own, whose
// package.json names one package more than its node_modules holds.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

describe('scripts/task.mjs: dependencies', () => {
  it('a package that package.json names and node_modules lacks stops every task with "run npm ci", before anything is built', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-task-'));
    try {
      fs.mkdirSync(path.join(dir, 'scripts'));
      fs.copyFileSync(path.join(repoRoot, 'scripts', 'task.mjs'), path.join(dir, 'scripts', 'task.mjs'));
      fs.mkdirSync(path.join(dir, 'node_modules', 'present'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'node_modules', 'present', 'package.json'), '{"name":"present"}');
      const pkg = { name: 'x', dependencies: { present: '1.0.0', 'added-later': '1.0.0' }, devDependencies: { 'also-added': '1.0.0' } };
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg));
      const r = spawnSync(process.execPath, [path.join(dir, 'scripts', 'task.mjs'), 'unit'], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /node_modules lacks added-later, also-added, which package\.json names .*run `npm ci` first/);
      assert.doesNotMatch(r.stderr, /present/);
      assert.equal(fs.existsSync(path.join(dir, 'out')), false, 'nothing was built');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
