#!/usr/bin/env node
// Generates l10n/bundle.l10n.json, the extension's messages (English source → English), from
// the sources: every `l10n.t(…)` call in src/**/*.ts (`vscode.l10n.t('…', …)`, also the object
// form `l10n.t({ message, args, comment })`), every `t(…)` call (the translator parameter of the
// modules that run without `vscode`, see src/util/l10n.ts), every `message(…)` call (the texts
// of notifications and dialogs, see src/ui/messages.ts), and the texts of the site form
// (siteForm.ts formTexts(), read from the compiled out/src/sites/siteForm.js).
//
//   node scripts/l10n-bundle.mjs           check: exit 1 (and say what differs) when the bundle is out of date
//   node scripts/l10n-bundle.mjs --write   update l10n/bundle.l10n.json
//
// Run `npx tsc -p .` first (the site form's texts come from out/). test/unit/l10n.test.ts runs
// the check, so a message added without `--write` fails the unit tests. A translation is a
// bundle.l10n.<locale>.json next to it with the same keys (e.g. made with @vscode/l10n-dev).
//
// Rules the check enforces:
// - the message (first argument) is a literal: a string or a template without `${…}`; the only
//   computed ones are listed in DYNAMIC below;
// - with positional arguments, the message uses `{0}`…`{n-1}`, each of them, and no other.
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bundleFile = path.join(root, 'l10n', 'bundle.l10n.json');

/**
 * The calls whose message is computed, by file and argument text. Their messages reach the
 * bundle another way.
 */
export const DYNAMIC = [
  // The translator handed to the pure modules: forwards their `t('literal', …)` messages, which
  // are collected from those calls.
  { file: 'src/l10n.ts', arg: 'message' },
  // The site form's labels, help, option labels and rule messages: formTexts() lists them.
  { file: 'src/sites/siteEditor.ts', arg: 'text' },
  // The messages of notifications and dialogs: collected from the `message('literal', …)` calls.
  { file: 'src/ui/messages.ts', arg: 'template' },
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

/** `vscode.l10n.t`, `l10n.t`, a translator parameter `t`, or `message` of src/ui/messages.ts. */
function isTranslateCall(node) {
  const e = node.expression;
  if (ts.isIdentifier(e)) return e.text === 't' || e.text === 'message';
  if (!ts.isPropertyAccessExpression(e) || e.name.text !== 't') return false;
  const obj = e.expression;
  return (ts.isIdentifier(obj) && obj.text === 'l10n') || (ts.isPropertyAccessExpression(obj) && obj.name.text === 'l10n');
}

function literalText(node) {
  return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
}

function property(obj, name) {
  for (const p of obj.properties) {
    if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === name) return p.initializer;
  }
  return undefined;
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
 * Adds the messages of one source file (`rel`: its path from the repository root, with `/`) to
 * `messages` (key → bundle value: the English text, or `{ message, comment }` for the object
 * form with a comment) and what is wrong with its calls to `problems`.
 */
export function scanSource(rel, source, messages = new Map(), problems = []) {
  const sf = ts.createSourceFile(rel, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const where = (node) => `${rel}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
  const add = (key, value, node) => {
    const prev = messages.get(key);
    if (prev !== undefined && JSON.stringify(prev) !== JSON.stringify(value)) problems.push(`${where(node)}: ${JSON.stringify(key)} has two different comments`);
    messages.set(key, value);
  };
  const visit = (node) => {
    if (ts.isCallExpression(node) && isTranslateCall(node)) {
      const [first, ...args] = node.arguments;
      const text = literalText(first);
      if (text !== undefined) {
        const p = placeholderProblem(text, args);
        if (p) problems.push(`${where(node)}: the message ${JSON.stringify(text)} ${p}`);
        add(text, text, node);
      } else if (first && ts.isObjectLiteralExpression(first)) {
        const message = literalText(property(first, 'message'));
        const c = property(first, 'comment');
        const comment = c && ts.isArrayLiteralExpression(c) ? c.elements.map(literalText) : c ? [literalText(c)] : [];
        if (message === undefined || comment.some((x) => x === undefined)) {
          problems.push(`${where(node)}: l10n.t({ message, comment }) needs a literal message and literal comments`);
        } else {
          const a = property(first, 'args');
          if (a && ts.isArrayLiteralExpression(a)) {
            const p = placeholderProblem(message, [...a.elements]);
            if (p) problems.push(`${where(node)}: the message ${JSON.stringify(message)} ${p}`);
          }
          // VS Code looks a message with a comment up as "message/comment".
          if (comment.length) add(`${message}/${comment.join('')}`, { message, comment }, node);
          else add(message, message, node);
        }
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

/** Every message of the TypeScript files under src/, and the problems found. */
export function scanSources() {
  const messages = new Map();
  const problems = [];
  for (const file of sourceFiles()) scanSource(path.relative(root, file).split(path.sep).join('/'), readFileSync(file, 'utf8'), messages, problems);
  return { messages, problems };
}

/** The site form's texts (labels, help, option labels, rule messages) from the compiled siteForm. */
export function formTexts() {
  const compiled = path.join(root, 'out', 'src', 'sites', 'siteForm.js');
  if (!existsSync(compiled)) throw new Error(`${path.relative(root, compiled)} is missing: run \`npx tsc -p .\` first`);
  return createRequire(import.meta.url)(compiled).formTexts();
}

/** The bundle's content, and the problems of the sources. */
export function build() {
  const { messages, problems } = scanSources();
  for (const text of formTexts()) if (!messages.has(text)) messages.set(text, text);
  const keys = [...messages.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const bundle = Object.fromEntries(keys.map((k) => [k, messages.get(k)]));
  return { text: `${JSON.stringify(bundle, null, 2)}\n`, bundle, problems };
}

/** What is wrong: problems of the sources, an out-of-date bundle, package.json without "l10n". */
export function check() {
  const { text, bundle, problems } = build();
  const out = [...problems];
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (pkg.l10n !== './l10n') out.push(`package.json: "l10n" is ${JSON.stringify(pkg.l10n)}, expected "./l10n"`);
  const current = existsSync(bundleFile) ? readFileSync(bundleFile, 'utf8') : '';
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
    const { text, bundle, problems } = build();
    if (problems.length) {
      for (const p of problems) process.stderr.write(`${p}\n`);
      process.exit(1);
    }
    mkdirSync(path.dirname(bundleFile), { recursive: true });
    writeFileSync(bundleFile, text);
    process.stdout.write(`l10n/bundle.l10n.json: ${Object.keys(bundle).length} messages\n`);
  } else {
    const problems = check();
    for (const p of problems) process.stderr.write(`${p}\n`);
    process.exit(problems.length ? 1 : 0);
  }
}
