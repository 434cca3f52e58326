// The inner loop's contract: .vscode/*.json parse (JSON with comments), every task a launch
// configuration or another task names exists, and what `node esbuild.mjs --watch` prints is what
// the problem matcher of .vscode/tasks.json reads (a build with an error in a scratch copy).
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ts from 'typescript';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** A .vscode file, parsed as VS Code does (comments and trailing commas allowed). */
function jsonc<T>(rel: string): T {
  const file = path.join(repoRoot, rel);
  const { config, error } = ts.parseConfigFileTextToJson(file, fs.readFileSync(file, 'utf8'));
  assert.equal(error, undefined, `${rel}: ${error ? ts.flattenDiagnosticMessageText(error.messageText, '\n') : ''}`);
  return config as T;
}

interface Pattern {
  regexp: string;
  file?: number;
  line?: number;
  column?: number;
  message?: number;
  severity?: number;
}
interface Matcher {
  base?: string;
  pattern?: Pattern | Pattern[];
  background?: { activeOnStart?: boolean; beginsPattern: string; endsPattern: string };
}
interface Task {
  label: string;
  dependsOn?: string[];
  problemMatcher?: Matcher | string | (Matcher | string)[];
  command?: string;
  args?: string[];
}
interface Launch {
  configurations: { name: string; preLaunchTask?: string; args?: string[]; env?: Record<string, string> }[];
  inputs?: { id: string }[];
}

describe('inner loop (.vscode, npm run watch)', () => {
  const tasks = () => jsonc<{ tasks: Task[] }>('.vscode/tasks.json').tasks;
  const task = (label: string) => {
    const t = tasks().find((x) => x.label === label);
    assert.ok(t, `task "${label}"`);
    return t;
  };

  it('tasks, launch configurations and recommendations are valid and name only what exists', () => {
    const labels = new Set(tasks().map((t) => t.label));
    const launch = jsonc<Launch>('.vscode/launch.json');
    const inputs = new Set((launch.inputs ?? []).map((i) => i.id));
    for (const c of launch.configurations) {
      if (c.preLaunchTask) assert.ok(labels.has(c.preLaunchTask), `${c.name}: preLaunchTask "${c.preLaunchTask}"`);
      for (const m of JSON.stringify(c).matchAll(/\$\{input:([\w-]+)\}/g)) assert.ok(inputs.has(m[1]!), `${c.name}: input ${m[1]}`);
    }
    for (const t of tasks()) for (const d of t.dependsOn ?? []) assert.ok(labels.has(d), `${t.label}: dependsOn "${d}"`);
    assert.ok(launch.configurations.some((c) => c.preLaunchTask === 'watch + service' && c.env?.SITE_REVISIONS_AUTOSIGNIN), 'a launch against the local service');
    assert.ok(launch.configurations.some((c) => c.args?.some((a) => a.includes('${fileBasenameNoExtension}'))), 'a launch for the unit test file in the editor');
    const rec = jsonc<{ recommendations: string[] }>('.vscode/extensions.json').recommendations;
    assert.deepEqual([...rec].sort(), ['connor4312.esbuild-problem-matchers', 'dbaeumer.vscode-eslint']);
    const scripts = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.equal(scripts.watch, 'node scripts/task.mjs watch');
  });

  it('the tsc watcher is ready when it starts and reports when a check begins and ends', () => {
    const m = task('watch: types').problemMatcher as Matcher;
    assert.equal(m.base, '$tsc-watch');
    const begins = new RegExp(m.background!.beginsPattern);
    const ends = new RegExp(m.background!.endsPattern);
    // tsc's own lines (typescript/lib: diagnostic messages 6031, 6032, 6193, 6194).
    const start = '9:30:26 AM - Starting compilation in watch mode...';
    const change = '9:31:06 AM - File change detected. Starting incremental compilation...';
    assert.ok(ends.test(start) && !begins.test(start));
    assert.ok(begins.test(change) && !ends.test(change));
    for (const done of ['9:31:17 AM - Found 2 errors. Watching for file changes.', '9:31:37 AM - Found 1 error. Watching for file changes.', '9:30:41 AM - Found 0 errors. Watching for file changes.']) {
      assert.ok(ends.test(done), done);
    }
    const messages = fs.readFileSync(path.join(repoRoot, 'node_modules', 'typescript', 'lib', 'typescript.js'), 'utf8');
    for (const text of ['Starting compilation in watch mode...', 'File change detected. Starting incremental compilation...', 'Found {0} errors. Watching for file changes.']) {
      assert.ok(messages.includes(text), `tsc still prints "${text}"`);
    }
  });

  it('esbuild --watch prints what the task’s problem matcher reads: build started/finished, and each error with file, line and column', async function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-watch-'));
    try {
      fs.copyFileSync(path.join(repoRoot, 'esbuild.mjs'), path.join(dir, 'esbuild.mjs'));
      fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      fs.mkdirSync(path.join(dir, 'src'));
      fs.writeFileSync(path.join(dir, 'src', 'extension.ts'), 'export function activate(): void {\n  const x = ;\n}\n');
      const child = spawn(process.execPath, ['esbuild.mjs', '--watch'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let grace: ReturnType<typeof setTimeout> | undefined;
      const finished = new Promise<void>((resolve, reject) => {
        // The build's end and its errors come on two pipes, in either order: wait for both (or,
        // should the error never come, a while after the end, and let the assertions say so).
        const onData = (d: Buffer) => {
          out += d.toString('utf8');
          if (!out.includes('[watch] build finished')) return;
          if (/extension\.ts:\d+:\d+/.test(out)) resolve();
          else grace ??= setTimeout(resolve, 10_000);
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`esbuild --watch exited (${code}) before a build finished:\n${out}`)));
      });
      try {
        await finished;
      } finally {
        clearTimeout(grace);
        child.kill();
      }
      const lines = out.split(/\r?\n/);
      const m = task('watch: bundle').problemMatcher as Matcher;
      const [first, second] = m.pattern as Pattern[];
      assert.ok(lines.some((l) => new RegExp(m.background!.beginsPattern).test(l)), out);
      assert.ok(lines.some((l) => new RegExp(m.background!.endsPattern).test(l)), out);
      const problems: { message: string; file: string; line: number; column: number }[] = [];
      for (let i = 0; i + 1 < lines.length; i++) {
        const a = new RegExp(first!.regexp).exec(lines[i]!);
        const b = a && new RegExp(second!.regexp).exec(lines[i + 1]!);
        if (a && b) problems.push({ message: a[first!.message!]!, file: b[second!.file!]!, line: Number(b[second!.line!]), column: Number(b[second!.column!]) });
      }
      assert.equal(problems.length, 1, out);
      assert.deepEqual({ ...problems[0], message: undefined }, { message: undefined, file: 'src/extension.ts', line: 2, column: 13 });
      assert.match(problems[0]!.message, /Unexpected ";"/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
