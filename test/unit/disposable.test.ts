// The lifecycle idiom (src/core/util/disposable.ts): what a class owns is disposed with it, once,
// the last made first, even when one of them fails.
import * as assert from 'node:assert/strict';
import { Disposable, DisposableStore } from '../../src/core/util/disposable';

function recorder(log: string[], name: string, fail = false) {
  return {
    dispose() {
      log.push(name);
      if (fail) throw new Error(`${name} failed`);
    },
  };
}

class Owner extends Disposable {
  constructor(log: string[]) {
    super();
    this.own(recorder(log, 'emitter'));
    this.own(recorder(log, 'listener'));
  }
  adopt<T extends { dispose(): unknown }>(d: T): T {
    return this.own(d);
  }
}

describe('Disposable, DisposableStore', () => {
  it('a store disposes what it holds once, the last added first', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    const a = store.add(recorder(log, 'a'));
    store.add(recorder(log, 'b'));
    assert.equal(typeof a.dispose, 'function', 'add returns what it was given');
    assert.equal(store.isDisposed, false);
    store.dispose();
    store.dispose();
    assert.deepEqual(log, ['b', 'a']);
    assert.equal(store.isDisposed, true);
  });

  it('what is added after dispose() is disposed at once (a listener registered too late does not leak)', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.dispose();
    store.add(recorder(log, 'late'));
    assert.deepEqual(log, ['late']);
  });

  it('one failing dispose does not keep the others alive; its error is thrown after', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(recorder(log, 'a'));
    store.add(recorder(log, 'b', true));
    store.add(recorder(log, 'c', true));
    assert.throws(() => store.dispose(), /c failed/);
    assert.deepEqual(log, ['c', 'b', 'a']);
  });

  it('a class extending Disposable disposes what it owns with itself, once', () => {
    const log: string[] = [];
    const owner = new Owner(log);
    owner.adopt(recorder(log, 'later'));
    owner.dispose();
    owner.dispose();
    assert.deepEqual(log, ['later', 'listener', 'emitter']);
    owner.adopt(recorder(log, 'after'));
    assert.deepEqual(log.at(-1), 'after', 'owned after its disposal: disposed at once');
  });
});
