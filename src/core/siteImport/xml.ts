// XML of an import file (FileZilla, Cyberduck's property lists, Dreamweaver) as a small element
// tree, read with fast-xml-parser. Nothing from a DTD is ever used: a document type with an
// internal subset or an entity declaration is refused before parsing (external entities and
// entity expansion, "billion laughs"); the parser runs with entity processing off, and only XML's
// five predefined entities and character references are decoded here, into text.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { english, type Translate } from '../util/l10n';
import { IMPORT_LIMITS, ImportFileError } from './types';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the predefined entities and character references; any other `&name;` stays as it reads. */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z]+);/g, (m, ref: string) => {
    if (ref[0] !== '#') return PREDEFINED[ref] ?? m;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    if (!(code > 0 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) return '\uFFFD';
    return String.fromCodePoint(code);
  });
}

/** The root element of an XML document, or an ImportFileError saying why it cannot be read. */
export function parseXml(text: string, t: Translate = english): XmlElement {
  if (/<!DOCTYPE[^>]*\[/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new ImportFileError('entities', t('The file declares XML entities (a DOCTYPE with an internal subset). Site files have none, and entities are never expanded here: the file is not read.'));
  }
  const foreign = /&(?!(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)([A-Za-z_][\w.-]{0,40});/.exec(text);
  if (foreign) {
    throw new ImportFileError('entities', t('The file refers to an entity (&{0};) that is defined outside it. Site files use none, and entities are never read here: the file is not read.', foreign[1]!));
  }
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: true });
  if (valid !== true) {
    const { line, col, msg } = valid.err;
    throw new ImportFileError('malformed', t('The file is not well-formed XML (line {0}, column {1}: {2}). It may be cut off or damaged; export it again.', line, col, msg.slice(0, 160)));
  }
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    allowBooleanAttributes: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    cdataPropName: '__cdata',
    maxNestedTags: IMPORT_LIMITS.depth,
  });
  let nodes: RawNode[];
  try {
    nodes = parser.parse(text) as RawNode[];
  } catch (e) {
    if (e instanceof Error && /nested/i.test(e.message)) throw deepError(t);
    throw new ImportFileError('malformed', t('The file cannot be read as XML ({0}).', (e instanceof Error ? e.message : String(e)).slice(0, 160)));
  }
  const root = toTree(nodes, t).find((n): n is XmlElement => typeof n !== 'string');
  if (!root) throw new ImportFileError('empty', t('The file holds no XML element.'));
  return root;
}

type RawNode = Record<string, unknown>;

function deepError(t: Translate): ImportFileError {
  return new ImportFileError('malformed', t('The file’s elements are nested more than {0} deep: this is not a site file.', IMPORT_LIMITS.depth));
}

/** fast-xml-parser's ordered output → elements and texts, without recursion (a deep file cannot overflow the stack). */
function toTree(top: RawNode[], t: Translate): XmlNode[] {
  const out: XmlNode[] = [];
  const stack: { raw: RawNode[]; into: XmlNode[]; depth: number }[] = [{ raw: top, into: out, depth: 0 }];
  while (stack.length) {
    const { raw, into, depth } = stack.pop()!;
    if (depth > IMPORT_LIMITS.depth) throw deepError(t);
    for (const node of raw) {
      for (const [key, value] of Object.entries(node)) {
        if (key === ':@') continue;
        if (key === '#text') {
          into.push(decodeEntities(String(value)));
        } else if (key === '__cdata') {
          for (const c of value as RawNode[]) if (typeof c['#text'] === 'string') into.push(c['#text']);
        } else {
          const attrs: Record<string, string> = {};
          for (const [k, v] of Object.entries((node[':@'] as Record<string, unknown> | undefined) ?? {})) attrs[k] = decodeEntities(String(v));
          const el: XmlElement = { name: key, attrs, children: [] };
          into.push(el);
          stack.push({ raw: value as RawNode[], into: el.children, depth: depth + 1 });
        }
      }
    }
  }
  return out;
}

/** The child elements (of one name, when given). */
export function elements(el: XmlElement, name?: string): XmlElement[] {
  return el.children.filter((c): c is XmlElement => typeof c !== 'string' && (name === undefined || c.name === name));
}

/** The first child element of that name. */
export function child(el: XmlElement, name: string): XmlElement | undefined {
  return el.children.find((c): c is XmlElement => typeof c !== 'string' && c.name === name);
}

/** An element's text (its direct text children). */
export function textOf(el: XmlElement | undefined): string {
  return el ? el.children.filter((c): c is string => typeof c === 'string').join('') : '';
}

/** An attribute by name, whatever its case (Dreamweaver writes both `accesstype` and `accessType`). */
export function attr(el: XmlElement, name: string): string | undefined {
  const n = name.toLowerCase();
  for (const [k, v] of Object.entries(el.attrs)) if (k.toLowerCase() === n) return v;
  return undefined;
}
