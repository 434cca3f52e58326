#!/usr/bin/env node
// Generates l10n/bundle.l10n.json, the extension's messages (English source → English):
//
// - every `vscode.l10n.t(…)` / `l10n.t(…)` call in src/**/*.ts, string or object form
//   (`{ message, args, comment }` → "message/comment"), as extracted by @vscode/l10n-dev (the
//   extractor of VS Code's localisation tooling, `getL10nJson`);
// - plus what l10n-dev cannot see, the small addition of this script:
//   - the `t('…', …)` calls of the translator parameter that the modules running without `vscode`
//     take (src/core/util/l10n.ts), and the `message('…', …)` calls (the texts of notifications and
//     dialogs, src/workbench/messages.ts): l10n-dev only knows `l10n.t`;
//   - the site form's texts (labels, help, option labels, rule messages: formTexts() of the
//     compiled out/src/features/sites/formTexts.js), which reach vscode.l10n.t as data;
//   - two checks on every translated call: its message is a literal (a computed one could never be
//     in the bundle; the documented exceptions are DYNAMIC below), and `{0}`…`{n-1}` match its n
//     positional arguments.
//
//   node scripts/l10n-bundle.mjs           check: exit 1 (and say what differs) when the bundle is out of date
//   node scripts/l10n-bundle.mjs --write   update l10n/bundle.l10n.json
//
// Run `npx tsc -p .` first (the site form's texts come from out/). test/unit/l10n.test.ts runs the
// check, so a message added without `--write` fails the unit tests. A translation is a
// bundle.l10n.<locale>.json next to it with the same keys (e.g. made with @vscode/l10n-dev).
import { getL10nJson } from '@vscode/l10n-dev';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bundleFile = path.join(root, 'l10n', 'bundle.l10n.json');

/** The calls whose message is computed, by file and argument text; their messages reach the bundle another way. */
export const DYNAMIC = [
  // The translator handed to the pure modules: forwards their `t('literal', …)` messages, which are collected from those calls.
  { file: 'src/workbench/l10n.ts', arg: 'message' },
  // The site form's labels, help, option labels and rule messages: formTexts() lists them.
  { file: 'src/features/sites/siteEditor.ts', arg: 'text' },
  // The messages of notifications and dialogs: collected from the `message('literal', …)` calls.
  { file: 'src/workbench/messages.ts', arg: 'template' },
];

function sourceFiles(dir = path.join(root, 'src')) {
  const out = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) out.push(...sourceFiles(p));
    else if (d.name.endsWith('.ts') && !d.name.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

/** 'l10n': `vscode.l10n.t` / `l10n.t` (l10n-dev extracts these); 't': a translator parameter or `message` of src/workbench/messages.ts; undefined: neither. */
function translateCall(node) {
  const e = node.expression;
  if (ts.isIdentifier(e)) return e.text === 't' || e.text === 'message' ? 't' : undefined;
  if (!ts.isPropertyAccessExpression(e) || e.name.text !== 't') return undefined;
  const obj = e.expression;
  return (ts.isIdentifier(obj) && obj.text === 'l10n') || (ts.isPropertyAccessExpression(obj) && obj.name.text === 'l10n') ? 'l10n' : undefined;
}

function literalText(node) {
  return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
}

/** Checks that `{0}`…`{n-1}` are each used and nothing else, for `n` positional arguments. */
function placeholderProblem(message, args) {
  if (args.length === 0 || args.some((a) => ts.isSpreadElement(a))) return undefined;
  if (args.length === 1 && ts.isObjectLiteralExpression(args[0])) return undefined; // named arguments
  const used = new Set([...message.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1])));
  const extra = [...used].filter((i) => i >= args.length);
  const unused = args.map((_a, i) => i).filter((i) => !used.has(i));
  if (extra.length) return `uses {${extra.join('}, {')}} but has ${args.length} argument(s)`;
  if (unused.length) return `does not use argument(s) {${unused.join('}, {')}}`;
  return undefined;
}

/**
 * One source file (`rel`: its path from the repository root, with `/`): the messages of its
 * translator-parameter calls `t('…')` (l10n-dev extracts the `l10n.t` ones) and what is wrong
 * with any of its translated calls.
 */
export function scanSource(rel, source, messages = new Set(), problems = []) {
  const sf = ts.createSourceFile(rel, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const where = (node) => `${rel}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
  const visit = (node) => {
    const kind = ts.isCallExpression(node) ? translateCall(node) : undefined;
    if (kind) {
      const [first, ...args] = node.arguments;
      const text = literalText(first);
      const objectMessage = first && ts.isObjectLiteralExpression(first) ? first.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText(sf) === 'message') : undefined;
      if (text !== undefined) {
        const p = placeholderProblem(text, args);
        if (p) problems.push(`${where(node)}: the message ${JSON.stringify(text)} ${p}`);
        if (kind === 't') messages.add(text);
      } else if (kind === 'l10n' && objectMessage && literalText(objectMessage.initializer) !== undefined) {
        // the object form: l10n-dev extracts it
      } else {
        const arg = first ? first.getText(sf) : '';
        if (!DYNAMIC.some((d) => d.file === rel && d.arg === arg)) {
          problems.push(`${where(node)}: the message of ${node.expression.getText(sf)}(${arg}) is not a literal (see DYNAMIC in scripts/l10n-bundle.mjs)`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { messages, problems };
}

/** The site form's texts (labels, help, option labels, rule messages) from the compiled formTexts. */
export function formTexts() {
  const compiled = path.join(root, 'out', 'src', 'features', 'sites', 'formTexts.js');
  if (!existsSync(compiled)) throw new Error(`${path.relative(root, compiled)} is missing: run \`npx tsc -p .\` first`);
  return createRequire(import.meta.url)(compiled).formTexts();
}

let built;

/** The bundle's content (keys sorted, so that it merges well), and the problems of the sources; worked out once per process. */
export function build() {
  built ??= buildOnce();
  return built;
}

async function buildOnce() {
  const files = sourceFiles().map((file) => ({ rel: path.relative(root, file).split(path.sep).join('/'), contents: readFileSync(file, 'utf8') }));
  // l10n-dev parses with tree-sitter (seconds for the whole tree): only files that can hold an l10n.t call.
  const bundle = await getL10nJson(files.filter((f) => f.contents.includes('l10n')).map((f) => ({ contents: f.contents, extension: '.ts' })));
  const extra = new Set(formTexts());
  const problems = [];
  for (const f of files) scanSource(f.rel, f.contents, extra, problems);
  for (const text of extra) if (!(text in bundle)) bundle[text] = text;
  const keys = Object.keys(bundle).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const sorted = Object.fromEntries(keys.map((k) => [k, bundle[k]]));
  return { text: `${JSON.stringify(sorted, null, 2)}\n`, bundle: sorted, problems };
}

/**
 * What is wrong: problems of the sources, an out-of-date bundle, package.json without "l10n".
 * `bundleText` stands in for the bundle file's content (the tests check a damaged copy).
 */
export async function check(bundleText) {
  const { text, bundle, problems } = await build();
  const out = [...problems];
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (pkg.l10n !== './l10n') out.push(`package.json: "l10n" is ${JSON.stringify(pkg.l10n)}, expected "./l10n"`);
  const current = bundleText ?? (existsSync(bundleFile) ? readFileSync(bundleFile, 'utf8') : '');
  if (current !== text) {
    let have = {};
    try {
      have = current ? JSON.parse(current) : {};
    } catch {
      out.push('l10n/bundle.l10n.json is not valid JSON');
    }
    const missing = Object.keys(bundle).filter((k) => !(k in have));
    const stale = Object.keys(have).filter((k) => !(k in bundle));
    const changed = Object.keys(bundle).filter((k) => k in have && JSON.stringify(have[k]) !== JSON.stringify(bundle[k]));
    const list = (keys) => keys.slice(0, 10).map((k) => JSON.stringify(k)).join(', ') + (keys.length > 10 ? `, … (${keys.length})` : '');
    if (missing.length) out.push(`l10n/bundle.l10n.json lacks ${list(missing)}`);
    if (stale.length) out.push(`l10n/bundle.l10n.json has messages no longer used: ${list(stale)}`);
    if (changed.length) out.push(`l10n/bundle.l10n.json differs for ${list(changed)}`);
    if (!missing.length && !stale.length && !changed.length) out.push('l10n/bundle.l10n.json is not in the generated order or layout');
    out.push('run `node scripts/l10n-bundle.mjs --write` to update it');
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--write')) {
    const { text, bundle, problems } = await build();
    if (problems.length) {
      for (const p of problems) process.stderr.write(`${p}\n`);
      process.exit(1);
    }
    mkdirSync(path.dirname(bundleFile), { recursive: true });
    writeFileSync(bundleFile, text);
    process.stdout.write(`l10n/bundle.l10n.json: ${Object.keys(bundle).length} messages\n`);
  } else {
    const problems = await check();
    for (const p of problems) process.stderr.write(`${p}\n`);
    process.exit(problems.length ? 1 : 0);
  }
}
