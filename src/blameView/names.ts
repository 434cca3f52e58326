// The commands of the editor features (./index registers them; a unit test compares the two),
// apart from their code so that activation registers a stand-in for each (./shell.ts).
export const BLAME_VIEW_COMMANDS = ['siteRevisions.toggleBlame', 'siteRevisions.compareWithOtherSite'] as const;
