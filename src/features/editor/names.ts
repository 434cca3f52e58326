// The commands of the editor features (./index gives their handlers; a unit test compares the
// two), apart from their code so that activation registers each (./register.ts).
export const BLAME_VIEW_COMMANDS = ['siteRevisions.toggleBlame', 'siteRevisions.compareWithOtherSite'] as const;
