// A site as it was, restored: what the host holds while the confirmation waits (issue 32 §2).
// The plan keeps each file's path, revision, digest and size, not its content; the contents are
// read again when the restore is applied. 40 files of 1 MB: before, their texts stayed in the
// host's heap (40 MB and more) until the confirmation was answered. The figure for 200 files is a
// row of `npm run bench` (test/integration/bench/actions.bench.ts).
import * as assert from 'node:assert/strict';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import { reseededAndSignedIn, sitesViewOnly } from './support';
import { restorePlanHeap } from './restorePlan';

describe('A site as it was, restored: the plan holds no content', function () {
  this.timeout(240000);
  let api: ExtensionApi;
  let url: string;
  let site: Site;

  before(async () => {
    ({ url, api } = await reseededAndSignedIn());
    site = (await api.model.all()).find((s) => s.name === 'Campaign Landing Pages')!;
  });
  after(() => sitesViewOnly());

  it('40 files of 1 MB to create: the confirmation lists them all, and the heap it holds meanwhile is far below their 40 MB', async () => {
    const m = await restorePlanHeap(api, url, site, { files: 40, bytes: 1_000_000, folder: 'plan' });
    assert.equal(m.listed, 40, 'every file in the confirmation');
    assert.ok(m.heldMB < 12, `held while the confirmation waits: ${m.heldMB.toFixed(1)} MB (peak while read ${m.peakMB.toFixed(1)} MB)`);
  });
});
