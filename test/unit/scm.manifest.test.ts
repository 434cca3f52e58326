// The working-copy feature (src/features/scm) and package.json agree: every command it registers at
// activation is contributed and the other way round, its menus name its source controls and its
// groups, the count-badge setting names the groups, and every colour its decorations use is
// contributed (a missing one draws nothing).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LINE_HISTORY_VIEW, SCM_COMMANDS, SCM_ID } from '../../src/features/scm/names';
import { GROUPS } from '../../src/core/status';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

interface Manifest {
  contributes: {
    commands: { command: string; title: string }[];
    views: Record<string, { id: string }[]>;
    menus: Record<string, { command: string; when?: string }[]>;
    configuration: { properties: Record<string, { items?: { enum?: string[] }; default?: unknown }> };
    colors: { id: string }[];
  };
}

describe('working copy: src/features/scm and package.json', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Manifest;
  const c = manifest.contributes;

  it('the commands registered at activation are the contributed ones of the feature', () => {
    const contributed = c.commands.map((x) => x.command).filter((id) => id.startsWith('siteRevisions.scm.') || /LineHistory/.test(id));
    assert.deepEqual([...contributed].sort(), [...SCM_COMMANDS].sort());
    assert.ok(Object.values(c.views).flat().some((v) => v.id === LINE_HISTORY_VIEW), 'the Line History view is contributed');
  });

  it('the menus name the feature’s source controls and its groups', () => {
    const when = Object.values(c.menus)
      .flat()
      .filter((m) => (SCM_COMMANDS as readonly string[]).includes(m.command))
      .map((m) => m.when ?? '');
    for (const w of when.filter((x) => x.includes('scmProvider'))) assert.match(w, new RegExp(`scmProvider == ${SCM_ID}\\b`), w);
    for (const w of when) for (const m of w.matchAll(/scmResourceState [!=]= (\w+)/g)) assert.ok((GROUPS as readonly string[]).includes(m[1]!), `${m[1]} is a group`);
    assert.ok(c.menus['scm/resourceState/context']!.some((m) => m.command === 'siteRevisions.scm.restoreNewest'), 'Restore Newest Revision on each file');
  });

  it('the count badge’s setting offers the groups, and counts the first two by default', () => {
    const setting = c.configuration.properties['siteRevisions.sourceControl.countBadge']!;
    assert.deepEqual(setting.items?.enum, [...GROUPS]);
    assert.deepEqual(setting.default, ['changedLocally', 'newerOnService']);
  });

  it('every colour the decorations use is contributed', () => {
    const used = [...fs.readFileSync(path.join(repoRoot, 'src', 'features', 'scm', 'decorations.ts'), 'utf8').matchAll(/'(siteRevisions\.\w+Foreground)'/g)].map((m) => m[1]!);
    assert.equal(used.length, GROUPS.length);
    const colors = new Set(c.colors.map((x) => x.id));
    for (const u of used) assert.ok(colors.has(u), `${u} is contributed`);
  });
});
