// The connection layer to a site's live server (issue 33; issue 34 builds its writes on it).
// Plain Node, no `vscode`. What the VS Code side uses:
//   siteEndpoint(site, local)        a site (saved, or the form's values) → an endpoint, or why it cannot be reached
//   openLive(endpoint, options)      the site's live file system (types.ts LiveFs); nothing connects before the first call;
//                                    each protocol's code is loaded on that first call (a chunk of its own)
//   testConnection(endpoint, o)      the steps of a connection and the root listed, with a next step on failure
//   compareLive(live, o)             Compare Live with Local / Live Drift groups; storeHistory() reads the revision store
//   LastSeen                         what this computer last saw of each live file (issue 34's base)
// Importing this module loads none of the protocols (no basic-ftp, ssh2 or undici).
export * from './types';
export { siteEndpoint, looksEncrypted, splitDomain, cleanDir, encodePath, type SiteLike } from './endpoint';
export { openLive } from './fs';
export { testConnection } from './testConnection';
export { compareLive, storeHistory, walkLive, liveConcurrency, sitePath, type CompareOptions, type CompareProgress, type CompareResult, type HistorySource, type NewestInfo } from './compare';
export { LastSeen } from './lastSeen';
export { parseKnownHosts, knownHostsName, sshFingerprint, linePatternsMatch, siteKey } from './trust';
