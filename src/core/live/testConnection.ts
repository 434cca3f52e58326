// Test Connection (issue 33 §4): connects with the values given (saved or typed in the form,
// with a password not saved), and lists the root. The result lists the steps in order, each
// with what it found and how long it took: the name resolved, TCP connected, TLS or the host
// key, logged in, the folder listed with its number of entries. A failing step is named with a
// next step. The test runs from this computer (the service connects from its own addresses).
import { openLive } from './fs';
import { LiveError, type LiveEndpoint, type StageReport, type TestConnection, type TestOptions, type TestResult } from './types';

export const testConnection: TestConnection = async (endpoint: LiveEndpoint, o: TestOptions): Promise<TestResult> => {
  const stages: StageReport[] = [];
  const given = o.password;
  /** When the last step was told: the listing's own time starts there (not with the connection). */
  let lastAt = Date.now();
  const fs = openLive(
    { ...endpoint, poolSize: 1 },
    {
      ...o,
      secrets: {
        ...o.secrets,
        // The form's unsaved password first; asked again only when the server refused it.
        password: (q) => (given !== undefined && q.reason === 'login' ? Promise.resolve(given) : o.secrets.password(q)),
      },
      onStage: (s) => {
        lastAt = Date.now();
        stages.push(s);
        o.onStage?.(s);
      },
    },
  );
  const signal = o.signal ?? new AbortController().signal;
  try {
    let entries = 0;
    for await (const b of fs.list('', { signal, resolveLinks: false })) entries += b.length;
    const list: StageReport = { stage: 'list', ok: true, detail: `${endpoint.root || 'the login folder'} listed: ${entries} entr${entries === 1 ? 'y' : 'ies'}`, ms: Date.now() - lastAt };
    stages.push(list);
    o.onStage?.(list);
    return { ok: true, stages, entries, fromThisComputer: true };
  } catch (e) {
    const error =
      e instanceof LiveError ? e : new LiveError('protocol', 'connect', e instanceof Error ? e.message : String(e), { next: 'Try again; if it repeats, check the server.', cause: e });
    if (!stages.some((s) => !s.ok)) {
      const failed: StageReport = { stage: error.stage, ok: false, detail: error.message, ms: 0 };
      stages.push(failed);
      o.onStage?.(failed);
    }
    return { ok: false, stages, error, fromThisComputer: true };
  } finally {
    await fs.close().catch(() => undefined);
  }
};
