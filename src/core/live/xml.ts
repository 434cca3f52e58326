// A small, tolerant, streaming XML reader for what WebDAV (multistatus) and S3 (ListBucketResult,
// Error) answer: elements by namespace URI and local name, text, entities; fed chunk by chunk so
// a folder of 10,000 entries is handed on as its <response> elements arrive. No DTDs, no
// processing of external entities (nothing is fetched, nothing expands): declarations,
// comments, processing instructions and CDATA markers are skipped or read as text.

export interface XmlHandler {
  open(ns: string, name: string): void;
  close(ns: string, name: string): void;
  text(t: string): void;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : m;
    }
    return ENTITIES[e] ?? m;
  });
}

interface Scope {
  prefixes: Map<string, string>;
  name: string;
  ns: string;
}

export class XmlStream {
  private buf = '';
  private readonly stack: Scope[] = [];

  constructor(private readonly h: XmlHandler) {}

  private resolve(qname: string, attrs: Map<string, string>, isAttr = false): { ns: string; local: string } {
    const i = qname.indexOf(':');
    const prefix = i >= 0 ? qname.slice(0, i) : '';
    const local = i >= 0 ? qname.slice(i + 1) : qname;
    if (isAttr && !prefix) return { ns: '', local };
    const key = prefix ? `xmlns:${prefix}` : 'xmlns';
    if (attrs.has(key)) return { ns: attrs.get(key)!, local };
    for (let s = this.stack.length - 1; s >= 0; s--) {
      const v = this.stack[s]!.prefixes.get(prefix);
      if (v !== undefined) return { ns: v, local };
    }
    return { ns: '', local };
  }

  feed(chunk: string): void {
    this.buf += chunk;
    let i = 0;
    const b = this.buf;
    for (;;) {
      const lt = b.indexOf('<', i);
      if (lt < 0) {
        // keep a partial text (an entity may be cut)
        const amp = b.lastIndexOf('&');
        const cut = amp >= i && b.indexOf(';', amp) < 0 ? amp : b.length;
        if (cut > i) this.text(b.slice(i, cut));
        i = cut;
        break;
      }
      if (lt > i) this.text(b.slice(i, lt));
      if (b.startsWith('<!--', lt)) {
        const end = b.indexOf('-->', lt + 4);
        if (end < 0) {
          i = lt;
          break;
        }
        i = end + 3;
        continue;
      }
      if (b.startsWith('<![CDATA[', lt)) {
        const end = b.indexOf(']]>', lt + 9);
        if (end < 0) {
          i = lt;
          break;
        }
        this.h.text(b.slice(lt + 9, end));
        i = end + 3;
        continue;
      }
      const gt = b.indexOf('>', lt);
      if (gt < 0) {
        i = lt;
        break;
      }
      const tag = b.slice(lt + 1, gt);
      i = gt + 1;
      if (tag[0] === '?' || tag[0] === '!') continue;
      if (tag[0] === '/') {
        const s = this.stack.pop();
        if (s) this.h.close(s.ns, s.name);
        continue;
      }
      const selfClose = tag.endsWith('/');
      const body = selfClose ? tag.slice(0, -1) : tag;
      const m = /^([^\s/]+)/.exec(body);
      if (!m) continue;
      const attrs = new Map<string, string>();
      const re = /([^\s=]+)\s*=\s*("([^"]*)"|'([^']*)')/g;
      let a: RegExpExecArray | null;
      while ((a = re.exec(body.slice(m[1]!.length)))) attrs.set(a[1]!, decodeEntities(a[3] ?? a[4] ?? ''));
      const prefixes = new Map<string, string>();
      for (const [k, v] of attrs) {
        if (k === 'xmlns') prefixes.set('', v);
        else if (k.startsWith('xmlns:')) prefixes.set(k.slice(6), v);
      }
      const { ns, local } = this.resolve(m[1]!, attrs);
      this.stack.push({ prefixes, name: local, ns });
      this.h.open(ns, local);
      if (selfClose) {
        this.stack.pop();
        this.h.close(ns, local);
      }
    }
    this.buf = b.slice(i);
  }

  private text(t: string): void {
    if (t) this.h.text(decodeEntities(t));
  }
}

/** Parses a whole small document into a flat list of (path of local names → text), e.g. 'Error/Code' → 'AccessDenied'. */
export function xmlTexts(doc: string): Map<string, string> {
  const out = new Map<string, string>();
  const path: string[] = [];
  let text = '';
  new XmlStream({
    open: (_ns, name) => {
      path.push(name);
      text = '';
    },
    close: () => {
      const k = path.join('/');
      if (text.trim() && !out.has(k)) out.set(k, text.trim());
      path.pop();
      text = '';
    },
    text: (t) => (text += t),
  }).feed(doc);
  return out;
}
