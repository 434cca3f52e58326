// Whose revision documents are shown: the tag of the account signed in (core/model/account.ts),
// which every revision URI made carries and every revision URI read is checked against (see
// core/model/uri.ts). Set from the session when the feature loads (./index.ts), before its first
// revision document is made or read.
import { accountTag } from '../../core/model/account';

let accountKey: () => string | undefined = () => undefined;
let last: { key: string; tag: string } | undefined;

/** Where the account signed in is read from (`serviceUrl|email`, undefined when signed out). */
export function followRevisionAccount(key: () => string | undefined): void {
  accountKey = key;
}

/** The tag of the account signed in; undefined when signed out. */
export function revisionAccount(): string | undefined {
  const key = accountKey();
  if (key === undefined) return undefined;
  if (last?.key !== key) last = { key, tag: accountTag(key) };
  return last.tag;
}
