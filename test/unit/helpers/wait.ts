// Waiting for a state in the unit tests: polls `check` until it holds (never a fixed sleep).
// The deadline only turns a hang into a clear failure; it is not what the test asserts.
export async function until(check: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
