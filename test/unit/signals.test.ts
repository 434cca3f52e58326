// Stopping the long-running tasks by a signal to the process that was started, not by Ctrl+C in a
// terminal (which reaches every process of the group): a process manager, `timeout`, `kill <pid>`,
// a closed terminal's SIGHUP. Each wrapper — npm's script, scripts/task.mjs (and its re-run under
// Node 24), test/host/start.ts — passes SIGINT, SIGTERM and SIGHUP on to what it started and waits
// for it, so that when the process signalled has exited nothing it started is left running.
// Real processes, real signals; the processes are found in /proc (Linux).
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort, listProcesses } from '../host/common';
import { codeServerEntry } from '../host/install';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const task = path.join(repoRoot, 'scripts', 'task.mjs');
const linux = fs.existsSync('/proc/self/stat');

interface Started {
  child: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

/** Starts `cmd` in a process group of its own (the test's clean-up can reach all of it), its output read here. */
function start(cmd: string, args: string[]): Started {
  const child = spawn(cmd, args, { cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, exited, output: () => out };
}

async function until(what: string, check: () => boolean, s: Started, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s. Output:\n${s.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every live process below `pid` (by parent), with its command line. */
function descendants(pid: number): Map<number, string> {
  const procs = listProcesses().filter((p) => p.state !== 'Z');
  const found = new Map<number, string>();
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    for (const c of procs) {
      if (c.ppid === p && !found.has(c.pid)) {
        found.set(c.pid, c.cmd);
        stack.push(c.pid);
      }
    }
  }
  return found;
}

/** Those of `pids` still running (not ended, not a zombie). */
function running(pids: Map<number, string>): string[] {
  const live = new Map(listProcesses().filter((p) => p.state !== 'Z').map((p) => [p.pid, p.cmd]));
  return [...pids].filter(([pid, cmd]) => live.get(pid) === cmd).map(([pid, cmd]) => `${pid} ${cmd.slice(0, 140)}`);
}

function killAll(s: Started, pids: Map<number, string>): void {
  for (const target of [-s.child.pid!, ...pids.keys()]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

describe('signals: the long-running tasks stop what they started (scripts/task.mjs, test/host/start.ts, npm)', function () {
  this.timeout(180000);
  let dir: string;

  before(function () {
    if (!linux) this.skip();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-signals-'));
  });

  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Starts `cmd`, waits until `ready` is printed, sends `sig` to that process alone, and checks
   * that what it started has stopped: by the time it exits (`waits`), or within 15 s.
   */
  async function stopsEverything(cmd: string, args: string[], ready: RegExp, sig: NodeJS.Signals, o: { waits: boolean; readyMs?: number; atLeast: number; group?: boolean }): Promise<Started> {
    const s = start(cmd, args);
    let tree = new Map<number, string>();
    try {
      await until(`${cmd} ${args.join(' ')} ready`, () => ready.test(s.output()), s, o.readyMs ?? 60000);
      tree = descendants(s.child.pid!);
      assert.ok(tree.size >= o.atLeast, `what it started: ${[...tree.values()].join(' | ')}`);
      // To that process alone, or (`group`, as a terminal's Ctrl+C) to every process of its group.
      process.kill(o.group ? -s.child.pid! : s.child.pid!, sig);
      await until(`the exit after ${sig}`, () => s.child.exitCode !== null || s.child.signalCode !== null, s, 30000);
      if (o.waits) assert.deepEqual(running(tree), [], `still running when the process sent ${sig} exited`);
      else await until(`everything stopped after ${sig}`, () => running(tree).length === 0, s, 15000);
    } finally {
      killAll(s, tree);
      await s.exited;
    }
    return s;
  }

  const service = (name: string) => ['service', '--port', '0', '--quiet', '--data', path.join(dir, `${name}.json`)];

  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    it(`node scripts/task.mjs service: ${sig} to it stops the service, and it exits only after`, async () => {
      await stopsEverything(process.execPath, [task, ...service(sig)], /SERVICE_READY/, sig, { waits: true, atLeast: 1 });
    });
  }

  // npm → its script `exec node scripts/task.mjs service` (the shell replaced by the task runner; on
  // Windows exec.cmd stands in for exec) → the re-run under Node 24 where the machine's is older →
  // the local service. npm passes SIGINT and SIGTERM on to its script's process and waits for it;
  // SIGHUP ends npm alone, and the task runner takes the loss of its parent as SIGHUP.
  const canNpm = () => spawnSync('npm', ['--version']).status === 0;

  it('npm scripts that exec the task runner have a stand-in for exec where npm runs them with cmd.exe (Windows): exec.cmd runs the rest of its line', () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.deepEqual(Object.keys(scripts).filter((k) => scripts[k]!.startsWith('exec ')).sort(), ['service', 'start']);
    const shim = fs.readFileSync(path.join(repoRoot, 'exec.cmd'), 'latin1');
    assert.match(shim, /^[\x20-\x7e\r\n]*$/, 'plain ASCII: cmd.exe reads it in the console’s code page');
    assert.ok(shim.split('\n').slice(0, -1).every((l) => l.endsWith('\r')), 'CRLF line ends');
    assert.deepEqual(shim.split('\r\n').filter((l) => l && !l.startsWith('@rem ')), ['@%*'], 'its one command runs its arguments as a command');
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`npm run service: ${sig} to npm stops the task runner and the service${sig === 'SIGHUP' ? ' (npm does not pass it on)' : ', and npm exits only after'}`, async function () {
      if (!canNpm()) this.skip();
      const [name, ...args] = service(`npm-${sig}`);
      await stopsEverything('npm', ['run', '-s', name!, '--', ...args], /SERVICE_READY/, sig, { waits: sig !== 'SIGHUP', atLeast: 2 });
    });
  }
  it('npm run service: Ctrl+C (SIGINT to the whole group, and passed on by each wrapper) stops all of it', async function () {
    if (!canNpm()) this.skip();
    const [name, ...args] = service('npm-ctrl-c');
    await stopsEverything('npm', ['run', '-s', name!, '--', ...args], /SERVICE_READY/, 'SIGINT', { waits: true, atLeast: 2, group: true });
  });

  // The real thing, where code-server is installed (nothing is installed here): npm → scripts/task.mjs
  // (its script execs it) → test/host/start.ts → the local service and code-server.
  const npmStart = async (sig: NodeJS.Signals, waits: boolean) => {
    const port = await freePort();
    await stopsEverything('npm', ['start', '-s', '--', '--web', '--port', String(port), '--data', path.join(dir, `start-${sig}.json`)], /Press Ctrl\+C to stop/, sig, { waits, readyMs: 150000, atLeast: 4 });
  };
  const canStart = () => fs.existsSync(codeServerEntry) && spawnSync('npm', ['--version']).status === 0;

  it('npm start: Ctrl+C (SIGINT to the whole group, and passed on by each wrapper) stops all of it as one Ctrl+C, not as a second one', async function () {
    if (!canStart()) this.skip();
    const port = await freePort();
    const s = await stopsEverything('npm', ['start', '-s', '--', '--web', '--port', String(port), '--data', path.join(dir, 'start-ctrl-c.json')], /Press Ctrl\+C to stop/, 'SIGINT', { waits: true, readyMs: 150000, atLeast: 4, group: true });
    assert.match(s.output(), /SIGINT: stopping everything this script started/);
    assert.doesNotMatch(s.output(), /again: exiting now/);
  });

  it('npm start: SIGTERM to npm stops code-server, the local service and every process of theirs, and npm exits only after', async function () {
    if (!canStart()) this.skip();
    await npmStart('SIGTERM', true);
  });

  it('npm start: SIGHUP to npm (which does not pass it on) stops all of it too', async function () {
    if (!canStart()) this.skip();
    await npmStart('SIGHUP', false);
  });
});
