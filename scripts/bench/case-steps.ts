// The step a bench case is in, for the message when it passes its bound: a case that hangs
// says where (peer-relay once hung under a loaded test run with nothing to say which of its calls).
// One case runs at a time, so one slot serves them all.

let current = '';

/** Marks what the running case does next. */
export function step(what: string): void {
  current = what;
}

/** What the running case last said it was doing, and clears it for the next case. */
export function takeStep(): string {
  const said = current;
  current = '';
  return said;
}
