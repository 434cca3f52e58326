// Site files of other tools → rows for the import's preview (src/features/siteImport), and the
// service's sites → the files of two of them (./export.ts). The readers and their parsers
// (fast-xml-parser, jsonc-parser) run on a thread of their own (./offThread.ts,
// dist/siteImportWorker.js); what the extension's chunk loads on first use is the rest.
export * from './types';
export { decodeImportText, readImportBytes } from './text';
export { ImportCancelledError, parseOffThread } from './offThread';
export { parseSiteFile, parseSiteText } from './parse';
export { sameSite, siteKey } from './match';
export { exportFileZilla, exportSftpJson, writePrivateFile, type ExportOptions } from './export';
