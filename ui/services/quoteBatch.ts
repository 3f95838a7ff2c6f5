/**
 * Live quotes handed to a screen in batches: the newest quote of each symbol that moved, the first batch at once
 * after a quiet spell, then at most one every `batchMs`, so a busy market redraws a screen about once a second
 * rather than on every quote.
 */
import type { Quote } from '../../domain/market/types.ts';

/** A batcher: `take` each quote as it comes; `stop` drops what is held. */
export interface QuoteBatcher {
  take(quote: Quote): void;
  stop(): void;
}

/** Gathers quotes and calls `send` with each batch. */
export function quoteBatcher(batchMs: number, send: (quotes: readonly Quote[]) => void): QuoteBatcher {
  const pending = new Map<string, Quote>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let sentAt = Number.NEGATIVE_INFINITY;
  const flush = () => {
    timer = null;
    if (pending.size === 0) return;
    const quotes = [...pending.values()];
    pending.clear();
    sentAt = Date.now();
    send(quotes);
  };
  return {
    take: (quote) => {
      pending.set(quote.symbol, quote);
      timer ??= setTimeout(flush, Math.max(0, sentAt + batchMs - Date.now()));
    },
    stop: () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      pending.clear();
    },
  };
}
