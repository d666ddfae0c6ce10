/**
 * Turns of the event loop handed out one at a time, to work that many agents
 * start at once. Two hundred agents whose answers arrive together would each
 * build and send their next request in the same stretch of the loop (a
 * millisecond or so each): timers, I/O and the views' updates waited for all
 * of them, and on a busy machine that stretch is several times longer again.
 * Each waiter here goes on in a loop turn of its own, in the order they came;
 * a lone agent goes on within the same turn (after its I/O callbacks), so it
 * costs nothing when nothing else waits.
 */

const waiting: Array<() => void> = [];
let releasing = false;

/** Resolves in a turn of the event loop no other waiter has. */
export function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!releasing) {
      releasing = true;
      setImmediate(release);
    }
  });
}

function release(): void {
  waiting.shift()?.();
  // An immediate queued while immediates run waits for the next turn of the loop: timers and I/O come first.
  if (waiting.length) setImmediate(release);
  else releasing = false;
}
