// How often the event loop turned while some work ran: work that gives the thread back lets the
// callbacks queued meanwhile run (test/unit/blame.slices.test.ts, store.slices.test.ts).

/** Runs `work` and counts the turns of the event loop (setImmediate callbacks) until it ends. */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let on = true;
  const spin = () => {
    if (!on) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { value: await work(), turns };
  } finally {
    on = false;
  }
}
