// Whose a read of the revision store is (no `vscode`): a read takes the account (clear() starts
// the next) and that account's disk store when it starts; a reply or a disk read that arrives for
// an account that is no longer the current one is stored nowhere and its caller gets a
// CancelledError. Identical concurrent reads are merged here too; each caller can abort on its own.
import { CancelledError } from '../api/errors';
import { RequestScheduler } from '../scheduler';
import type { DiskStore } from '../store';
import type { Caller, ReadOptions, RevisionSource, RevisionStoreOptions } from './revisionTypes';

/** Whose a read is, taken when it starts: the account (clear() starts the next) and that account's disk store. */
export interface Owner {
  readonly account: number;
  readonly disk: Promise<DiskStore | undefined>;
}

export class Ownership {
  /** Bumped by next(): what was read for a previous account is stored nowhere. */
  private account = 0;
  /** Merges identical concurrent reads; each caller aborts on its own (the scheduler's share()). */
  private readonly merged = new RequestScheduler();

  constructor(
    private readonly call: Caller,
    private readonly diskStore: RevisionStoreOptions['disk'],
  ) {}

  /** The current account (a number bumped by each clear()), for the keys of merged reads. */
  get current(): number {
    return this.account;
  }

  /** Starts the next account: reads started before it belong to no one. */
  next(): void {
    this.account++;
  }

  /** The disk store when there is one and it is usable. */
  async disk(): Promise<DiskStore | undefined> {
    const d = await this.diskStore?.().catch(() => undefined);
    if (!d) return undefined;
    await d.ready;
    return d.enabled ? d : undefined;
  }

  /** The account a read starts for, with its disk store (asked for now, not when the reply is in). */
  owner(): Owner {
    return { account: this.account, disk: this.disk() };
  }

  /** Whether `owner`'s account is still the current one. */
  isCurrent(owner: Owner): boolean {
    return owner.account === this.account;
  }

  /** Throws a CancelledError when the account changed since `owner` was taken: what was read belongs to no one now. */
  check(owner: Owner, what: string): void {
    if (!this.isCurrent(owner)) throw new CancelledError(what);
  }

  /** One service call for `owner`: its reply only when that account is still the current one. */
  async request<T>(owner: Owner, what: string, fn: (source: RevisionSource) => Promise<T>): Promise<T> {
    this.check(owner, what);
    const value = await this.call(fn);
    this.check(owner, what);
    return value;
  }

  /** Runs `work` once for every caller asking for `key` meanwhile; a caller whose signal aborts leaves (CancelledError). */
  shared<T>(key: string, o: ReadOptions, what: string, work: (o: ReadOptions) => Promise<T>): Promise<T> {
    const priority = o.priority ?? 'user';
    return this.merged.share(key, o.signal ? { priority, signal: o.signal, cancelled: () => new CancelledError(what) } : { priority }, (call) =>
      work({ ...(call.signal ? { signal: call.signal } : {}), priority: call.priority }),
    );
  }
}
