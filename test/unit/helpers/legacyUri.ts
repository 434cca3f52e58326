// The revision URI as the extension made it before tab titles named the revision
// (`?s=…&r=…&p=…`): links and restored tabs of that form must still open.
import { revisionUriPath, type RevisionAddress } from '../../../src/core/model/uri';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function legacyRevisionUriComponents(a: RevisionAddress): { path: string; query: string } {
  const raw = LONE_SURROGATE.test(a.path) ? `j=${encodeURIComponent(JSON.stringify(a.path))}` : `p=${encodeURIComponent(a.path)}`;
  return { path: revisionUriPath(a.path), query: `s=${encodeURIComponent(a.siteId)}&r=${encodeURIComponent(a.revisionId)}&${raw}` };
}
