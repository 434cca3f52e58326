#!/usr/bin/env node
// Renders the README's Commands and Settings tables from package.json, between the markers
//   <!-- commands:start --> … <!-- commands:end -->   and   <!-- settings:start --> … <!-- settings:end -->
// (the benchmark table of docs/benchmarks.md is written by `npm run bench -- --write-docs`), and
// the README as the .vsix holds it (`packagedReadme`).
//
//   node scripts/readme-tables.mjs           check: exit 1 (and say what differs) when README is out of date
//   node scripts/readme-tables.mjs --write   update README.md
//
// test/unit/readme.test.ts runs the check, so a command or setting added to package.json without
// `--write` fails the unit tests.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NOTE = '<!-- Generated from package.json by `node scripts/readme-tables.mjs --write`; do not edit by hand. -->';

/** Escapes a table cell: pipes, and line breaks become spaces. */
function cell(text) {
  return String(text).replace(/\r?\n+/g, ' ').replace(/\|/g, '\\|').trim();
}

function code(text) {
  const s = String(text);
  const fence = s.includes('`') ? '``' : '`';
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/** Readable names of tree item kinds (`viewItem` context values); others are split from camelCase. */
const ITEM_NAMES = {
  site: 'site',
  revision: 'revision',
  revisionMapping: 'folder mapping',
  revisionLoadMore: '“Load more”',
};

function itemName(id) {
  return ITEM_NAMES[id] ?? id.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The tree item kinds a `when` clause names through `viewItem`. */
function itemsOf(when = '') {
  const out = [];
  for (const m of when.matchAll(/viewItem\s*=~\s*\/\^?([A-Za-z][A-Za-z0-9]*)/g)) out.push(m[1]);
  for (const m of when.matchAll(/viewItem\s*==\s*'?([A-Za-z][A-Za-z0-9]*)/g)) out.push(m[1]);
  return [...new Set(out)];
}

function viewOf(when = '', views) {
  const m = /\bview\s*==\s*'?([\w.-]+)/.exec(when);
  return m ? (views.get(m[1]) ?? m[1]) : undefined;
}

/** Where each command appears, in the order of first mention: id → list of places. */
export function placesOf(pkg) {
  const c = pkg.contributes ?? {};
  const views = new Map();
  for (const list of Object.values(c.views ?? {})) for (const v of list) views.set(v.id, v.name ?? v.id);
  const places = new Map();
  const add = (id, where) => {
    if (!places.has(id)) places.set(id, []);
    const list = places.get(id);
    if (!list.includes(where)) list.push(where);
  };
  const menus = c.menus ?? {};
  const hidden = new Set((menus.commandPalette ?? []).filter((m) => m.when === 'false').map((m) => m.command));
  for (const cmd of c.commands ?? []) if (!hidden.has(cmd.command)) add(cmd.command, 'Command Palette');
  for (const [menu, entries] of Object.entries(menus)) {
    if (menu === 'commandPalette') continue;
    for (const e of entries) {
      if (!e.command) continue;
      const inline = /^inline\b/.test(e.group ?? '');
      const navigation = /^navigation\b/.test(e.group ?? '');
      const view = viewOf(e.when, views);
      const items = itemsOf(e.when).map(itemName);
      const on = items.length ? `${items.join(' / ')} item` : 'item';
      switch (menu) {
        case 'view/title':
          add(e.command, navigation ? `${view ?? 'view'} view title bar` : `${view ?? 'view'} view “…” menu`);
          break;
        case 'view/item/context':
          add(e.command, inline ? `${view ?? 'view'} view, ${on} buttons` : `${view ?? 'view'} view, ${on} context menu`);
          break;
        case 'editor/title':
          add(e.command, navigation ? 'editor title bar' : 'editor “…” menu');
          break;
        case 'editor/title/context':
          add(e.command, 'editor tab context menu');
          break;
        case 'editor/context':
          add(e.command, 'editor context menu');
          break;
        case 'explorer/context':
          add(e.command, 'Explorer context menu');
          break;
        default:
          add(e.command, `${menu} menu`);
      }
    }
  }
  for (const w of c.viewsWelcome ?? []) {
    for (const m of String(w.contents ?? '').matchAll(/\(command:([\w.-]+)/g)) add(m[1], `${views.get(w.view) ?? w.view} view welcome`);
  }
  for (const wt of c.walkthroughs ?? []) {
    for (const step of wt.steps ?? []) {
      for (const m of String(step.description ?? '').matchAll(/\(command:([\w.-]+)/g)) add(m[1], `walkthrough “${wt.title}”`);
    }
  }
  for (const k of c.keybindings ?? []) add(k.command, `keyboard: ${code(k.key)}`);
  return places;
}

export function renderCommands(pkg) {
  const places = placesOf(pkg);
  const rows = ['| Command | Category | ID | Where it appears |', '|---|---|---|---|'];
  for (const cmd of pkg.contributes?.commands ?? []) {
    const where = places.get(cmd.command) ?? [];
    rows.push(`| ${cell(cmd.title)} | ${cell(cmd.category ?? '')} | ${code(cmd.command)} | ${cell(where.join('; ') || 'only invoked by the extension')} |`);
  }
  return rows.join('\n');
}

function typeOf(p) {
  const base = Array.isArray(p.type) ? p.type.join(' | ') : (p.type ?? 'any');
  if (Array.isArray(p.enum)) return p.enum.map((v) => code(JSON.stringify(v))).join(' | ');
  if ((p.type === 'number' || p.type === 'integer') && (p.minimum !== undefined || p.maximum !== undefined)) {
    return `${base} (${p.minimum ?? '…'}–${p.maximum ?? '…'})`;
  }
  if (p.type === 'array' && p.items?.type) return `array of ${p.items.type}`;
  return base;
}

function descriptionOf(p) {
  // `#setting.id#` is a link in the Settings editor; in the README it is the setting's name.
  let text = (p.markdownDescription ?? p.description ?? '').replace(/`#([\w.-]+)#`/g, '`$1`');
  const enumText = p.markdownEnumDescriptions ?? p.enumDescriptions;
  if (Array.isArray(p.enum) && Array.isArray(enumText)) {
    text += ` ${p.enum.map((v, i) => `${code(String(v))}: ${enumText[i] ?? ''}`).join(' ')}`;
  }
  if (p.deprecationMessage || p.markdownDeprecationMessage) text += ` *Deprecated:* ${p.markdownDeprecationMessage ?? p.deprecationMessage}`;
  return text;
}

export function renderSettings(pkg) {
  const cfgs = pkg.contributes?.configuration;
  const list = Array.isArray(cfgs) ? cfgs : cfgs ? [cfgs] : [];
  const rows = ['| Setting | Type | Default | Scope | Description |', '|---|---|---|---|---|'];
  for (const cfg of list) {
    for (const [key, p] of Object.entries(cfg.properties ?? {})) {
      const dflt = p.default === undefined ? '' : code(JSON.stringify(p.default));
      rows.push(`| ${code(key)} | ${cell(typeOf(p))} | ${cell(dflt)} | ${p.scope ?? 'window'} | ${cell(descriptionOf(p))} |`);
    }
  }
  return rows.join('\n');
}

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->`; throws when the markers are missing. */
export function replaceBlock(readme, name, body) {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = readme.indexOf(start);
  const j = readme.indexOf(end);
  if (i < 0 || j < 0 || j < i) throw new Error(`README.md has no ${start} … ${end} block`);
  return `${readme.slice(0, i + start.length)}\n${NOTE}\n\n${body}\n\n${readme.slice(j)}`;
}

/** README text with both tables rendered from `pkg`. */
export function render(readme, pkg) {
  return replaceBlock(replaceBlock(readme, 'commands', renderCommands(pkg)), 'settings', renderSettings(pkg));
}

/**
 * The README as the .vsix holds it (scripts/task.mjs `package`). The extension's details page in
 * VS Code shows the README's images from inside the installed extension, but drops every link that
 * is neither a web address nor a heading of the README itself: a relative link to another file of
 * the repository (CONTRIBUTING.md, docs/*.md) would be dead there. Until the project has a public
 * repository for vsce to point such links at, each keeps its text and loses its link. A relative
 * image (a screenshot under docs/, which the .vsix does not carry: no viewer reads an image from
 * inside the package) becomes its description in italics. Links to a heading (`#…`) and absolute
 * URLs are left as they are.
 */
export function packagedReadme(readme) {
  return readme.replace(/(!?)\[([^\]\n]*)\]\(\s*([^)\s]+)(?:\s+"[^"\n]*")?\s*\)/g, (link, bang, text, target) => {
    if (target.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(target)) return link;
    return bang ? `*(${text})*` : text;
  });
}

/** The lines that differ between two texts (for the check's message). */
export function differences(actual, expected, max = 12) {
  const a = actual.split('\n');
  const e = expected.split('\n');
  const out = [];
  for (let k = 0; k < Math.max(a.length, e.length) && out.length < max; k++) {
    if (a[k] !== e[k]) out.push(`line ${k + 1}:\n  README:   ${a[k] ?? '(missing)'}\n  expected: ${e[k] ?? '(missing)'}`);
  }
  return out;
}

/**
 * Replaces every `%key%` string of package.json with its text from package.nls.json, as VS Code
 * does when it loads the manifest.
 */
export function localize(pkg, nls) {
  const walk = (v) => {
    if (typeof v === 'string') {
      const m = /^%([^%]+)%$/.exec(v);
      return m && typeof nls[m[1]] === 'string' ? nls[m[1]] : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(pkg);
}

/** package.json of the repository with its strings resolved from package.nls.json. */
export function readLocalizedPackage(dir = root) {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const nls = JSON.parse(readFileSync(path.join(dir, 'package.nls.json'), 'utf8'));
  return localize(pkg, nls);
}

function main() {
  const write = process.argv.includes('--write');
  const readmeFile = path.join(root, 'README.md');
  const readme = readFileSync(readmeFile, 'utf8');
  const pkg = readLocalizedPackage();
  const next = render(readme, pkg);
  if (next === readme) {
    console.log('README.md tables are up to date with package.json.');
    return 0;
  }
  if (write) {
    writeFileSync(readmeFile, next);
    console.log('README.md tables updated from package.json.');
    return 0;
  }
  console.error('README.md tables differ from package.json; run: node scripts/readme-tables.mjs --write');
  for (const d of differences(readme, next)) console.error(d);
  return 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main());
