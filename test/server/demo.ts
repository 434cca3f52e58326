// Demo accounts of the local service. These are test fixtures, not secrets: they are printed by
// `npm run service` so that a person can sign in. The service itself stores only salted hashes.

export const DEMO = {
  /** The main account: owns sites of every server type; a password is enough (no API key). */
  user: { email: 'demo@example.com', password: 'demo' },
  /** An account that requires `Authorization: Bearer <apiKey>` on every request. */
  keyUser: { email: 'key@example.com', password: 'key-password', apiKey: 'sr_demo_0123456789abcdef' },
  /** Another account: owns "Team Intranet", which it shares with the demo user. */
  team: { email: 'team@example.com', password: 'team-password' },
} as const;

/** Numeric ids of the demo accounts (the `user` field of their sites). */
export const DEMO_USER_IDS = { user: 1, team: 2, keyUser: 3 } as const;
