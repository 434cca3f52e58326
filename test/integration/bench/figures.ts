// The figures the bench suite writes from inside the extension host (SITE_REVISIONS_BENCH_OUT)
// and bench/run.ts reads: one shape for both sides. No vscode import.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** One measured action: its duration and the requests the service received meanwhile. */
export interface Measured {
  ms: number;
  requests: number;
  operations: Record<string, number>;
}

export interface HostFigures {
  samples: number;
  /** Set by bench/run.ts: true when the packaged .vsix was installed in the host, false for the development bundle. */
  installedVsix?: boolean;
  activation: {
    /** Whether the extension was already active when the bench suite started. */
    wasActive: boolean;
    /** Node's net, tls, crypto… that were loaded in this host before the extension activated (when it was not active yet). */
    builtinsBefore?: string[];
    /** `await extension.activate()` as VS Code runs it, when it was not active yet. */
    firstActivateMs?: number;
    /** Fresh copies of the extension (dist/extension.mjs and its chunks) loaded and activated in this host, compiled from source; then each one's first request (call → reply). */
    fresh?: { loadMs: number; activateMs: number; totalMs: number; readyMs: number; requests: number; firstRequestMs: number }[];
  };
  actions: Record<string, Measured[]>;
  huge?: { bytes: number; samples: Measured[]; contentMs?: number[] };
  /**
   * Compare with Working File of the 20 MB revision, its working file open in an editor, with the
   * diff editor's limit below it (the guard measures both sides and refuses): the host's event
   * loop meanwhile (perf_hooks.monitorEventLoopDelay, 1 ms), with the content fetched (cold) and
   * from memory (warm).
   */
  diffGuard?: { bytes: number; samples: { cold: boolean; ms: number; outcome: string; loop: LoopFigures }[] };
  /**
   * "Restore Into Local Folder…" of a site as it was (200 files of 1 MB to create): V8's used heap
   * after a full collection while its confirmation waits, and its highest sample while the plan
   * was read, each minus before the restore (test/integration/restorePlan.ts).
   */
  restorePlan?: PlanHeap[];
  /**
   * Transfers (issue 34; transfer.bench.ts): the host's event loop during a folder download from
   * its command (per protocol) and during each upload on save (save → uploaded), against the real
   * servers of test/live; `skipped` says why when they could not start.
   */
  transfer?: {
    files: number;
    bytes: number;
    download: { kind: 'sftp' | 'ftp'; ms: number; loop: LoopFigures }[];
    save: { ms: number; loop: LoopFigures }[];
    skipped?: string;
    errors: string[];
  };
  /** Size of the bundle the fresh copies were loaded from. */
  bundleBytes?: number;
  errors: string[];
}

/** The event loop's delay over an action, in ms (the shape of bench/lib.ts's LoopDelay). */
export interface LoopFigures {
  maxMs: number;
  p99Ms: number;
  meanMs: number;
  samples: number;
  heldMs?: number;
  heldP99Ms?: number;
}

/** What an as-of restore's plan held (test/integration/restorePlan.ts). */
export interface PlanHeap {
  files: number;
  bytes: number;
  /** V8's used heap after a full collection while the confirmation waits, minus before the restore (MB). */
  heldMB: number;
  /** The highest sample of V8's used heap while the plan was read, minus before (MB). */
  peakMB: number;
  /** Rows the confirmation listed. */
  listed: number;
}

/** Adds a suite's figures to the file named by SITE_REVISIONS_BENCH_OUT (each bench suite writes its own part). */
export function addHostFigures(part: Partial<HostFigures>): void {
  const file = process.env.SITE_REVISIONS_BENCH_OUT;
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const had = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<HostFigures>) : {};
  fs.writeFileSync(file, JSON.stringify({ ...had, ...part }, null, 2) + '\n');
}
