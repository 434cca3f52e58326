// The connection layer to a site's live server (issue 33 §1, issue 34's writes): the interface
// every protocol implements (FTP/FTPS with basic-ftp, SFTP with ssh2, WebDAV and S3 over undici)
// and what the VS Code side gives it (trust store, deciders, secrets) and gets back (entries,
// progress, typed errors). Plain Node, no `vscode` (lint-enforced): unit-tested against real
// servers (test/live).
//
// Conventions every implementation keeps:
// - Paths are ROOT-RELATIVE: segments joined with `/`, no leading or trailing slash; '' is the
//   root, which is the site's `dir` (src/core/live/endpoint.ts). `..` and empty segments are
//   refused (LiveError 'outside-root'). Names are what the server has, decoded (percent-encoding,
//   FTP's file-name encoding): they round-trip through every operation.
// - Every operation takes an AbortSignal and has a timeout (the endpoint's `timeoutMs`: the
//   longest silence of the server, not the length of a transfer, nor the time a person takes to
//   answer a trust question or a password prompt). An aborted operation rejects
//   with LiveError kind 'cancelled'. Reads may be retried once on a lost connection; writes are
//   never retried.
// - Progress comes by callbacks; errors are LiveError (kind, stage, next step), and no message,
//   detail or URL ever holds a password, a passphrase, a secret key or a private key.
// - Symbolic links are shown as links (type 'symlink', with their target), and followed only
//   within the root: reading or listing through a link whose target is outside it is refused.

// ---------------------------------------------------------------------------------------------
// Endpoints: what a site becomes (src/core/live/endpoint.ts makes them)

/** The protocols reachable from here. */
export type LiveProtocol = 'ftp' | 'sftp' | 'webdav' | 's3';

/** A connection definition, free of secrets (the password comes from LiveSecrets when needed). */
export interface LiveEndpoint {
  protocol: LiveProtocol;
  /** The site's id ('' for unsaved values in the form): keys the per-site remembered answers. */
  siteId: string;
  /** The site's name, for messages. */
  label: string;
  /** Host name or IP address (for S3: the endpoint's host). */
  host: string;
  /** The port (protocol default applied). */
  port: number;
  /** Login name (S3: the access key id, which is not a secret). */
  user: string;
  /**
   * The root on the server: an absolute path ('/var/www'), or '' for the login directory, or a
   * path relative to the login directory ('public_html') — FTP and SFTP resolve it after login.
   * WebDAV: the URL path of the collection (percent-decoded, begins with '/'). S3: the key prefix
   * ('' or ending with '/').
   */
  root: string;
  /** The longest silence of the server in any step (connect, a reply, a transfer), ms; a question to a person does not count. */
  timeoutMs: number;
  ftp?: {
    /** 'explicit': AUTH TLS on the plain port; 'implicit': TLS from the first byte (port 990). */
    tls: 'none' | 'explicit' | 'implicit';
    /** Passive mode (the server opens the data port). Active mode is not supported: see docs/decisions.md. */
    passive: boolean;
    /** File-name encoding of the control connection (a Node BufferEncoding: 'utf8', 'latin1'). */
    encoding: 'utf8' | 'latin1';
  };
  sftp?: {
    /** How to log in: the password, a key file of this computer, or the SSH agent. */
    auth: 'password' | 'key' | 'agent';
    /** Absolute path of the private key file (auth 'key'). */
    keyFile?: string;
    /** The agent's socket (auth 'agent'; default SSH_AUTH_SOCK). */
    agentSocket?: string;
  };
  webdav?: {
    /** The collection's URL without credentials (`https://host:port/path/`), percent-encoded. */
    url: string;
  };
  s3?: {
    bucket: string;
    region: string;
    /** `https://s3.amazonaws.com` or a custom endpoint's origin, without credentials. */
    endpoint: string;
    /** Path-style URLs (`endpoint/bucket/key`) instead of virtual-host (`bucket.endpoint/key`). */
    pathStyle: boolean;
  };
  /** TLS is used (FTPS, https WebDAV, https S3). */
  tls: boolean;
  /** Connections this site may hold at once (FTP carries one transfer per connection). */
  poolSize: number;
  /** A connection idle this long is closed, ms. */
  idleMs: number;
}

/** Why a site cannot be reached from here (endpoint.ts explains each in its `reason`). */
export type UnreachableKind = 'no-server' | 'oauth' | 'ajax' | 'unknown-type' | 'incomplete';

// ---------------------------------------------------------------------------------------------
// Entries

export type LiveEntryType = 'file' | 'dir' | 'symlink' | 'other';

/** What a symbolic link points at. */
export interface LiveLink {
  /** The target as the server reported it (relative or absolute, on the server). */
  target: string;
  /** The target's root-relative path, when it is inside the root. */
  path?: string;
  /**
   * What the target is, when resolvable: 'outside' (not under the root: never followed),
   * 'missing' (dangling), else its own type.
   */
  targetType?: 'file' | 'dir' | 'other' | 'missing' | 'outside';
}

/** One entry of a folder (or a stat). */
export interface LiveEntry {
  /** The name as the server has it, decoded. */
  name: string;
  /** Root-relative path ('' for the root itself). */
  path: string;
  type: LiveEntryType;
  /** Set for type 'symlink'. */
  link?: LiveLink;
  /** Bytes, when reported (files; for a link: the link's own size unless resolved). */
  size?: number;
  /**
   * Modification time, epoch ms UTC, only when the protocol gives it exactly: MLSD/MDTM (FTP),
   * SFTP attributes (seconds), PROPFIND getlastmodified / Last-Modified (WebDAV, seconds),
   * LastModified (S3). Undefined for FTP LIST times (local to the server, minute or day precision).
   */
  mtime?: number;
  /**
   * The modification time exactly as the server reported it ('20240102030405', 'Jan  2 03:04',
   * 'Tue, 02 Jan 2024 03:04:05 GMT', SFTP's seconds as a decimal string…). What a "last seen"
   * state compares: the same raw value means the server has not changed it.
   */
  mtimeRaw?: string;
  /** An etag or other uniqueness token (WebDAV getetag, S3 ETag, FTP MLSD `unique`). */
  etag?: string;
  /** Permission bits (e.g. 0o644), where the server reports them. */
  mode?: number;
}

// ---------------------------------------------------------------------------------------------
// Options of operations

export interface OpOptions {
  signal?: AbortSignal;
  /** Overrides the endpoint's timeoutMs for this call. */
  timeoutMs?: number;
}

export interface ListOptions extends OpOptions {
  /** Called with each batch as it arrives (big folders appear progressively). */
  onBatch?: (entries: LiveEntry[]) => void;
  /** Resolve each symbolic link's target type (one stat per link; default true). */
  resolveLinks?: boolean;
}

export interface ReadOptions extends OpOptions {
  /** Bytes read so far, and the total when known; called at most every 64 KiB or so. */
  onProgress?: (bytes: number, total: number | undefined) => void;
  /** Start at this byte (where the protocol supports it: FTP REST, SFTP, HTTP Range). */
  start?: number;
  /**
   * The file's size as a listing just gave it, when the caller has one: a protocol that asks the
   * server for the size before reading (FTP's `SIZE`, a round trip per file) takes it instead.
   * Only a hint for progress: the read still goes to the file's end, whatever its size now.
   */
  size?: number;
}

export interface WriteOptions extends OpOptions {
  onProgress?: (bytes: number, total: number | undefined) => void;
  /** The size of the source when known (progress, S3's Content-Length). */
  size?: number;
  /**
   * Write under a temporary name in the same folder and rename it over the target at the end
   * (default true where the protocol can rename; S3's PUT is atomic and needs none). A cancelled or
   * failed write deletes the temporary file.
   */
  atomic?: boolean;
  /** Permission bits to set after the write (SFTP chmod, FTP SITE CHMOD when the server allows it). */
  mode?: number;
  /** Modification time to set after the write, epoch ms (MFMT, SFTP setstat; not WebDAV/S3). */
  mtime?: number;
}

/** What a write left: the entry as the server now reports it (stat after the write), and what could not be done. */
export interface WriteResult {
  entry: LiveEntry | undefined;
  /** Things asked for that the protocol or server did not do ('mode', 'mtime', 'atomic'). */
  notDone: ('mode' | 'mtime' | 'atomic')[];
}

/** What a protocol can do (the VS Code side hides what it cannot). */
export interface LiveCapabilities {
  symlinks: boolean;
  rename: boolean;
  /** Rename replaces an existing target in one step. */
  atomicReplace: boolean;
  setTime: boolean;
  chmod: boolean;
  /** Folders exist as objects (false for S3: a folder is a key prefix). */
  realFolders: boolean;
  /** Reads can start at an offset. */
  rangeRead: boolean;
}

// ---------------------------------------------------------------------------------------------
// The live file system of one site

/** A byte stream of a file being read; `size` when the server said. */
export interface LiveReadStream extends AsyncIterable<Uint8Array> {
  readonly size: number | undefined;
  /** Stops the read and frees its connection (the iterator's return does the same). */
  destroy(): void;
}

export interface LiveFs {
  readonly endpoint: LiveEndpoint;
  readonly capabilities: LiveCapabilities;
  /**
   * The folder's entries (not recursive), in batches: each batch goes to `onBatch` as it arrives
   * and the iterator yields it too. `.` and `..` are left out. Listing a symbolic link to a
   * folder inside the root lists the folder; outside the root: LiveError 'outside-root'.
   */
  list(path: string, o?: ListOptions): AsyncIterable<LiveEntry[]>;
  /** All entries of a folder (list() gathered). */
  listAll(path: string, o?: ListOptions): Promise<LiveEntry[]>;
  /** The entry at `path`, or undefined when there is none. A link is reported as a link (see `link.targetType`). */
  stat(path: string, o?: OpOptions): Promise<LiveEntry | undefined>;
  /** A file's bytes as a stream; a link inside the root is followed. Must be consumed or destroyed. */
  read(path: string, o?: ReadOptions): Promise<LiveReadStream>;
  /** A whole file into memory (read() gathered), refused above `maxBytes` (LiveError 'too-large'). */
  readAll(path: string, o?: ReadOptions & { maxBytes?: number }): Promise<Uint8Array>;

  // ---- writes (issue 34). Never retried; a cancelled or failed write leaves no temporary file.
  /** Writes a file from bytes or a stream (see WriteOptions.atomic). */
  write(path: string, source: Uint8Array | AsyncIterable<Uint8Array>, o?: WriteOptions): Promise<WriteResult>;
  /** Makes a folder (and its parents); an existing folder is fine. */
  mkdir(path: string, o?: OpOptions): Promise<void>;
  /** Deletes a file or link, or an EMPTY folder (`recursive` for a whole folder). Gone already: fine. */
  delete(path: string, o?: OpOptions & { recursive?: boolean }): Promise<void>;
  /** Renames within the root; `overwrite` false refuses an existing target (LiveError 'exists'). */
  rename(from: string, to: string, o?: OpOptions & { overwrite?: boolean }): Promise<void>;
  /** Sets the modification time (capabilities.setTime), epoch ms. */
  setTime(path: string, mtime: number, o?: OpOptions): Promise<void>;

  /**
   * Work that will use up to `connections` at once is starting (walkLive): a protocol with a pool
   * of connections (FTP) opens them while the first one works. Nothing is asked of a person for
   * them: they open only after a connection has logged in.
   */
  warm?(connections: number): void;
  /** Closes every connection of the pool; later calls open new ones. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Trust, secrets and what the VS Code side provides

/** An SSH host key as stored. */
export interface HostKey {
  /** 'ssh-ed25519', 'ecdsa-sha2-nistp256', 'ssh-rsa'… */
  type: string;
  /** The key blob, base64 (as in known_hosts). */
  key: string;
  /** 'SHA256:…' as `ssh-keygen -lf` prints it (no padding). */
  fingerprint: string;
}

/**
 * What the extension remembers about servers (the VS Code side keeps it in globalState: none of
 * it is a secret). Host keys and certificate pins are per `host:port`; the clear-text consent is
 * per site (`siteKey`: 'site:<id>', or 'endpoint:<protocol>://<host>:<port>' for unsaved values).
 */
export interface TrustStore {
  hostKeys(host: string, port: number): Promise<HostKey[]>;
  addHostKey(host: string, port: number, key: HostKey): Promise<void>;
  /** SHA-256 fingerprints ('AB:CD:…', Node's X509Certificate.fingerprint256) pinned for this host:port. */
  pins(host: string, port: number): Promise<string[]>;
  addPin(host: string, port: number, fingerprint256: string): Promise<void>;
  cleartextAllowed(siteKey: string): Promise<boolean>;
  allowCleartext(siteKey: string): Promise<void>;
}

/** The certificate a TLS server presented, as a decider sees it. */
export interface CertificateInfo {
  host: string;
  port: number;
  /** 'AB:CD:…' uppercase hex, colon-separated. */
  fingerprint256: string;
  subject: string;
  issuer: string;
  /** ISO dates. */
  validFrom: string;
  validTo: string;
  /** Why it is not trusted: OpenSSL's code (DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_VERIFY_LEAF_SIGNATURE, ERR_TLS_CERT_ALTNAME_INVALID…). */
  reason: string;
  selfSigned: boolean;
}

/**
 * The questions only a person can answer (the VS Code side shows a modal dialog). Each may be
 * absent: then the answer is "no". A changed host key or an expired certificate is never asked:
 * it is refused.
 */
export interface TrustDecider {
  /**
   * A host key seen for the first time: 'always' stores it, 'once' trusts it for this LiveFs (its
   * later connections presenting the same key are not asked again, as with certificates).
   */
  unknownHostKey?(q: { host: string; port: number; key: HostKey; site: string }): Promise<'always' | 'once' | 'no'>;
  /** A certificate no trusted CA vouches for: 'always' pins its fingerprint for host:port. */
  untrustedCertificate?(q: { cert: CertificateInfo; site: string }): Promise<'always' | 'once' | 'no'>;
  /** Plain FTP or http to a host that is not loopback: the password would cross the network in clear. */
  cleartext?(q: { host: string; port: number; protocol: LiveProtocol; site: string }): Promise<'always' | 'once' | 'no'>;
}

/** Where the passwords come from (SecretStorage, a prompt, or the form's unsaved value). Never stored here. */
export interface LiveSecrets {
  /**
   * The password (FTP, SFTP password auth, WebDAV) or the secret access key (S3). `reason`:
   * 'login' the first login; 'refused' the server refused the last one (ask again);
   * Returns undefined to give up (LiveError 'auth' / 'password-needed').
   */
  password(q: { reason: 'login' | 'refused'; site: string }): Promise<string | undefined>;
  /** The passphrase of an encrypted key file; undefined to give up. */
  passphrase?(q: { keyFile: string; reason: 'login' | 'refused'; site: string }): Promise<string | undefined>;
}

/** The trust context of connections: stores, deciders, CAs, known_hosts. */
export interface LiveTrust {
  store: TrustStore;
  decider?: TrustDecider;
  /** OpenSSH known_hosts files read (never written); default ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts. */
  knownHostsFiles?: string[];
  /** Extra PEM CA certificates (the setting siteRevisions.caFile). */
  ca?: string;
  /** Trust the operating system's store too (siteRevisions.systemCertificates). */
  systemCertificates?: boolean;
}

/** A line for the log (never holds a secret). */
export type LiveLog = (level: 'debug' | 'info' | 'warn', message: string) => void;

/** What opening a site's live file system takes. */
export interface LiveOptions {
  trust: LiveTrust;
  secrets: LiveSecrets;
  log?: LiveLog;
  /**
   * HTTP(S) proxy for WebDAV and S3: the service client's resolver (src/core/net/proxy.ts
   * proxyResolver: http.proxy, the environment, noProxy, loopback direct). A proxied connection is
   * a CONNECT tunnel to the site's host:port; the site's certificate is checked inside it as when
   * direct (`strictSSL` applies to an https proxy's own certificate). FTP and SFTP connect directly.
   */
  proxy?: (target: URL) => { url: string; strictSSL: boolean; authorization?: string } | undefined;
  /** Told what each connection step found (a status line, the log). */
  onStage?: (s: StageReport) => void;
}

// ---------------------------------------------------------------------------------------------
// Stages and errors

/** The steps of a connection, in order (Test Connection shows each). */
export type LiveStage = 'config' | 'resolve' | 'connect' | 'tls' | 'host-key' | 'login' | 'list' | 'read' | 'write';

/** What one step found. */
export interface StageReport {
  stage: LiveStage;
  ok: boolean;
  /** One line: 'resolved to 127.0.0.1', 'TLSv1.3, CN=127.0.0.1, SHA-256 AB:CD…', 'logged in as ftpuser'. */
  detail: string;
  /** Milliseconds the step took, without the time a person took to answer (`personMs`). */
  ms: number;
  /**
   * Milliseconds a person took to answer during the step (an unknown host key, a certificate, a
   * password prompt): not counted in `ms`, nor against the timeout (the server's silence).
   */
  personMs?: number;
  /** A note that is not a failure ('the server answered PASV with a private address; used the control connection's'). */
  warning?: string;
}

export type LiveErrorKind =
  | 'unsupported' // this server type cannot be reached from here (the reason says why)
  | 'config' // the site's values cannot make a connection (no host, a bad port…)
  | 'dns' // the name did not resolve
  | 'refused' // connection refused
  | 'unreachable' // no route, host down
  | 'timeout' // the server was silent longer than the timeout
  | 'connection-lost' // closed or reset in the middle
  | 'tls' // the TLS handshake failed (protocol, no TLS on that port…)
  | 'certificate-untrusted' // not vouched for by a CA, and not pinned (the person said no, or was not asked)
  | 'certificate-expired' // expired (or not yet valid): always refused
  | 'certificate-changed' // a pinned host presented another certificate
  | 'host-key-unknown' // not known and not accepted
  | 'host-key-changed' // known with another key: refused, both fingerprints given
  | 'host-key-revoked' // marked @revoked in known_hosts
  | 'cleartext-refused' // plain FTP/http to a remote host and the person said no
  | 'password-needed' // no password, and none given when asked
  | 'auth' // the server refused the login (530, SSH auth failure, HTTP 401/403 at login, S3 SignatureDoesNotMatch / InvalidAccessKeyId)
  | 'passive-private' // FTP PASV answered with a private address for a public server
  | 'not-found'
  | 'not-a-folder'
  | 'not-a-file'
  | 'exists'
  | 'permission' // 550 permission denied, SFTP permission denied, HTTP 403
  | 'outside-root' // a path or link that leaves the root
  | 'too-large'
  | 'protocol' // an answer we cannot read
  | 'server' // another error the server reported (its words in `detail`)
  | 'cancelled';

/** A failure of the live layer: which step, what kind, and what the person can do next. Never holds a secret. */
export class LiveError extends Error {
  /** Where it happened. */
  readonly stage: LiveStage;
  readonly kind: LiveErrorKind;
  /** One sentence a person can act on ('Check the port: the server refused the connection.'). */
  readonly next: string;
  /** What the server said, redacted (an FTP reply line, an HTTP status, an SSH disconnect reason). */
  readonly detail?: string;
  /** Facts for the VS Code side's message (fingerprints, addresses, the reply code). */
  readonly data?: Readonly<Record<string, string | number>>;
  constructor(kind: LiveErrorKind, stage: LiveStage, message: string, o: { next: string; detail?: string; data?: Record<string, string | number>; cause?: unknown }) {
    super(message, o.cause !== undefined ? { cause: o.cause } : undefined);
    this.name = 'LiveError';
    this.kind = kind;
    this.stage = stage;
    this.next = o.next;
    if (o.detail !== undefined) this.detail = o.detail;
    if (o.data !== undefined) this.data = o.data;
  }
  /** Whether a read may be tried again on a new connection. */
  get retryable(): boolean {
    return this.kind === 'connection-lost' || this.kind === 'timeout';
  }
}

// ---------------------------------------------------------------------------------------------
// Test Connection (src/core/live/testConnection.ts)

export interface TestResult {
  ok: boolean;
  /** The steps in order, the failing one last. */
  stages: StageReport[];
  /** The failure, when not ok. */
  error?: LiveError;
  /** Entries in the root when listed. */
  entries?: number;
  /** Always true: the test ran from this computer (the service connects from its own addresses; a firewall may treat them differently). */
  fromThisComputer: true;
}

// ---------------------------------------------------------------------------------------------
// Compare and drift (src/core/live/compare.ts)

/** The groups of a comparison of live, local and the newest revisions. */
export type CompareGroup = 'differsFromLocal' | 'differsFromNewest' | 'onlyLive' | 'onlyLocal' | 'onlyInHistory';

/** How a file was found to differ or match: by size, by content hash, or not decidable (unreadable). */
export type CompareBasis = 'size' | 'hash' | 'lastSeen' | 'unreadable';

export interface CompareRow {
  /** Root-relative path (the site's path). */
  path: string;
  group: CompareGroup;
  basis: CompareBasis;
  live?: { size?: number; mtime?: number; mtimeRaw?: string; sha256?: string };
  local?: { size: number; mtime: number; sha256?: string };
  newest?: { revisionId: string; sha256?: string; size?: number };
}

/** What a live file was when this computer last read, downloaded or uploaded it (issue 34's "base"). */
export interface LastSeenRecord {
  size: number;
  /** The server's raw modification time (LiveEntry.mtimeRaw). */
  mtimeRaw: string;
  /** SHA-256 hex of its bytes. */
  sha256: string;
  etag?: string;
  /** When recorded, epoch ms. */
  at: number;
  /** What recorded it. */
  by: 'read' | 'download' | 'upload';
}

// ---------------------------------------------------------------------------------------------
// The entry points of src/core/live/index.ts, as types (the implementations load each protocol
// with import() on first use: activation loads none of them)

/** Local, per-site settings of this computer (the VS Code side keeps them; none is a secret). */
export interface LocalSiteSettings {
  /** SFTP: a private key file of this computer (for `logon_type` = key); empty: the SSH agent. */
  keyFile?: string;
  /** SFTP: the agent's socket (default: SSH_AUTH_SOCK). */
  agentSocket?: string;
  /** FTP connections at once (default 3, 1–8). */
  poolSize?: number;
  /** Close a connection idle this long, seconds (default 60). */
  idleSeconds?: number;
  /** S3: the region (default: found from the bucket's `x-amz-bucket-region`, else us-east-1). */
  s3Region?: string;
  /** S3: a custom endpoint (`https://minio.example.com:9000`); default AWS. */
  s3Endpoint?: string;
  /** S3: path-style URLs (default: true for a custom endpoint, false for AWS). */
  s3PathStyle?: boolean;
  /** The timeout when the site has none, seconds (default 30). */
  defaultTimeoutSeconds?: number;
}

/** A site mapped to an endpoint (endpoint.ts `siteEndpoint`). */
export type MappedSite =
  | {
      ok: true;
      endpoint: LiveEndpoint;
      /**
       * The site's stored password when usable as it is; undefined when empty (save_password
       * off) or encrypted with a master password ('passwordIssue'): then ask the person. Never
       * logged, never written back to the service.
       */
      storedPassword: string | undefined;
      passwordIssue?: 'missing' | 'encrypted';
      /** Notes about fields that were read in a particular way ('timeout 900 s is above 300: 300 used'). */
      notes: string[];
    }
  | { ok: false; kind: UnreachableKind; reason: string };

/** Connection options of a Test Connection: LiveOptions plus a password typed in the form and not saved. */
export interface TestOptions extends LiveOptions {
  signal?: AbortSignal;
  /** A password given directly (the form's unsaved value); else `secrets.password` is asked. */
  password?: string;
}

export type OpenLive = (endpoint: LiveEndpoint, o: LiveOptions) => LiveFs;
export type TestConnection = (endpoint: LiveEndpoint, o: TestOptions) => Promise<TestResult>;
