// The extension's own code carries no test-only surface and no dead code: every export of a module
// under src/ is used by another part of src/ (tests, benchmarks and scripts do not count), except
// the few entry points named below. A function kept alive only by its test is found here.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import ts from 'typescript';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const srcDir = path.join(repoRoot, 'src') + path.sep;

/** Exports used from outside src/ on purpose: `module: reason`. */
const ENTRY_POINTS: Record<string, string> = {
  'src/extension.ts: activate': 'called by VS Code (dist/extension.mjs is package.json\'s "main")',
  'src/extension.ts: deactivate': 'called by VS Code',
  'src/features/sites/formTexts.ts: formTexts': 'read by scripts/l10n-bundle.mjs to build the localisation bundle',
  // Each protocol of the live layer is a chunk of its own, reached by import() in
  // src/core/live/fs.ts (loadDriver); the type checker does not link a dynamic import's member to its export.
  'src/core/live/ftp.ts: createDriver': 'loaded by import() in src/core/live/fs.ts loadDriver',
  'src/core/live/sftp.ts: createDriver': 'loaded by import() in src/core/live/fs.ts loadDriver',
  'src/core/live/webdav.ts: createDriver': 'loaded by import() in src/core/live/fs.ts loadDriver',
  'src/core/live/s3.ts: createDriver': 'loaded by import() in src/core/live/fs.ts loadDriver',
};

/** `file: name` of every export of src/ that no other code of src/ refers to. */
function unusedExports(): string[] {
  const config = ts.readConfigFile(path.join(repoRoot, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  const program = ts.createProgram(
    parsed.fileNames.filter((f) => path.resolve(f).startsWith(srcDir)),
    { ...parsed.options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const files = program.getSourceFiles().filter((f) => path.resolve(f.fileName).startsWith(srcDir));
  const target = (s: ts.Symbol | undefined) => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  // Every symbol some identifier of src/ refers to, other than the one that declares it.
  const used = new Set<ts.Symbol>();
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) {
        const declares = (node.parent as { name?: ts.Node } | undefined)?.name === node && ts.isDeclarationStatement(node.parent);
        const variable = ts.isVariableDeclaration(node.parent) && node.parent.name === node;
        if (!declares && !variable) {
          const s = target(checker.getSymbolAtLocation(node));
          if (s) used.add(s);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  const out: string[] = [];
  for (const file of files) {
    const mod = checker.getSymbolAtLocation(file);
    if (!mod) continue;
    for (const e of checker.getExportsOfModule(mod)) {
      const s = target(e);
      if (s && !used.has(s)) out.push(`${path.relative(repoRoot, file.fileName).split(path.sep).join('/')}: ${e.name}`);
    }
  }
  return out.sort();
}

describe('product code surface', function () {
  this.timeout(120_000);

  it('every export of src/ is used by the extension itself (no test-only or dead exports)', () => {
    const unused = unusedExports().filter((e) => !(e in ENTRY_POINTS));
    assert.deepEqual(unused, [], 'exports only tests (or nothing) use: move them into the test, or delete them');
  });
});
