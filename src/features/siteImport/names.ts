// The commands of the import and export of site definitions (package.json contributes them).
export const SITE_IMPORT_COMMANDS = ['siteRevisions.importSites', 'siteRevisions.exportSites'] as const;
export type SiteImportCommand = (typeof SITE_IMPORT_COMMANDS)[number];
