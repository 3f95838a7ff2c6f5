/**
 * The per-symbol throttle of the quotes a gateway streams: a symbol that moved is sent at once if its last quote
 * left long enough ago, else when that interval is over, with the price then.
 */

/** Shortest interval between two quotes of one symbol (4 per second). */
export const QUOTE_INTERVAL_MS = 250;

/** Sends the quotes of moved symbols to their rooms: at once if the symbol's last one is old enough, else later. */
export class QuoteThrottle {
  private readonly due = new Set<string>();
  private readonly lastSent = new Map<string, number>();
  private immediate = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly send: (symbol: string) => boolean,
    private readonly watched: (symbol: string) => boolean,
  ) {}

  moved(symbol: string): void {
    if (!this.watched(symbol)) return;
    this.due.add(symbol);
    if (this.immediate) return;
    this.immediate = true;
    setImmediate(() => {
      this.immediate = false;
      this.flush();
    });
  }

  private flush(): void {
    const now = performance.now();
    let next = Infinity;
    for (const symbol of this.due) {
      const wait = (this.lastSent.get(symbol) ?? -Infinity) + QUOTE_INTERVAL_MS - now;
      if (wait > 0) {
        next = Math.min(next, wait);
        continue;
      }
      this.due.delete(symbol);
      if (this.send(symbol)) this.lastSent.set(symbol, now);
    }
    if (this.lastSent.size > 10_000) {
      for (const [symbol, at] of this.lastSent) if (now - at > QUOTE_INTERVAL_MS) this.lastSent.delete(symbol);
    }
    if (next === Infinity || now + next >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = now + next;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.flush();
    }, Math.ceil(next));
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.due.clear();
  }
}
