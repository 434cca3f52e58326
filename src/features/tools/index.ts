// The language-model tools feature: the tools read through the Sites model and the revision
// store the views use (cached answers cost nothing).
import type { Session } from '../auth/session';
import type { Log } from '../../workbench/log';
import type { FolderMapping } from '../revisions/mapping';
import type { RevisionStore } from '../../core/model/revisionStore';
import type { SitesModel } from '../sites/sitesModel';
import { revisionStoreSource } from '../../core/search';
import type { HistorySource } from './kit';
import { HistoryTools } from './tools';

export interface LmToolsDeps {
  session: Session;
  model: SitesModel;
  store: RevisionStore;
  /** The folders mapped to sites (the working-copy tools: a folder's status, the history of lines). */
  folders: FolderMapping;
  log: Log;
}

const decoder = new TextDecoder('utf-8');

/** Settles with `p`, or rejects at once when `signal` aborts (the work behind `p` may go on for other callers). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The tools, not registered (src/features/history/register.ts registers them at activation and calls these). */
export function createLmTools(deps: LmToolsDeps): HistoryTools {
  const { model, store } = deps;
  const source: HistorySource = {
    sites: (signal) => untilAborted(model.current(), signal),
    files: async (siteId, signal, fresh) => (await untilAborted(store.siteFiles(siteId, { signal, fresh }), signal)).files.map((f) => f.path),
    revisions: async (siteId, path, signal, fresh) => (await untilAborted(store.revisions(siteId, path, { signal, fresh }), signal)).items.map((d) => ({ ...d.item, time: d.time })),
    listedPath: (siteId, revisionId) => store.findListed(siteId, revisionId)?.list.path,
    content: async (siteId, revisionId, signal) => decoder.decode(await untilAborted(store.content(siteId, revisionId, { signal }), signal)),
  };
  return new HistoryTools(deps.session, source, revisionStoreSource(store), deps.log, store, { folders: deps.folders, store });
}
