// The integration harness finds a Chromium or Chrome on Linux and macOS (test/host/install.ts
// findChromium): the environment variable first, then the usual commands on PATH, then the usual
// install paths; a fake file system stands in for the machine.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { CHROMIUM_ENV, findChromium, type ChromiumSearch } from '../host/install';

function machine(platform: NodeJS.Platform, files: string[], env: NodeJS.ProcessEnv = {}): ChromiumSearch {
  const have = new Set(files);
  return { platform, env: { PATH: ['/usr/local/bin', '/usr/bin'].join(path.delimiter), ...env }, home: '/home/me', isExecutable: (f) => have.has(f) };
}

describe('host: finding Chromium or Chrome', () => {
  it('the environment variable wins, and must name an executable', () => {
    assert.equal(findChromium(machine('linux', ['/opt/my/chrome', '/usr/bin/chromium'], { [CHROMIUM_ENV]: '/opt/my/chrome' })), '/opt/my/chrome');
    assert.throws(() => findChromium(machine('linux', ['/usr/bin/chromium'], { [CHROMIUM_ENV]: '/nope' })), /SITE_REVISIONS_CHROMIUM=\/nope: no executable there/);
  });

  it('then the usual commands on PATH, in order: chromium, chromium-browser, google-chrome, google-chrome-stable', () => {
    assert.equal(findChromium(machine('linux', ['/usr/bin/google-chrome', '/usr/local/bin/chromium-browser'])), '/usr/local/bin/chromium-browser');
    assert.equal(findChromium(machine('linux', ['/usr/bin/google-chrome-stable'])), '/usr/bin/google-chrome-stable');
    assert.equal(findChromium(machine('darwin', ['/usr/local/bin/chromium', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'])), '/usr/local/bin/chromium');
  });

  it('then the usual install paths: /snap and /opt on Linux, /Applications and ~/Applications on macOS', () => {
    const noPath = { PATH: '' };
    assert.equal(findChromium(machine('linux', ['/snap/bin/chromium'], noPath)), '/snap/bin/chromium');
    assert.equal(findChromium(machine('linux', ['/opt/google/chrome/chrome'], noPath)), '/opt/google/chrome/chrome');
    assert.equal(findChromium(machine('darwin', ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'], noPath)), '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
    assert.equal(findChromium(machine('darwin', ['/home/me/Applications/Chromium.app/Contents/MacOS/Chromium'], noPath)), '/home/me/Applications/Chromium.app/Contents/MacOS/Chromium');
    assert.equal(findChromium(machine('darwin', ['/usr/bin/chromium'], noPath)), undefined, 'Linux paths are not searched on macOS');
    assert.equal(findChromium(machine('linux', [], noPath)), undefined);
  });
});
