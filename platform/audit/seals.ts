/**
 * Seals: the log periodically records, on its `seals` stream, a signed checkpoint of the head (revision and hash)
 * of every user stream that changed since the last seal. The seals are themselves a keyed chain, so they cannot
 * be forged or edited without the chain key, and a stream that is shorter than its last seal, or whose sealed
 * event no longer has the sealed hash, was truncated or rewritten. The first seal also marks where the log
 * started keying every event (`keyedSince`).
 */
import {
  START,
  StreamNotFoundError,
  WrongExpectedRevisionError,
  comparePositions,
  formatPosition,
  parsePosition,
  type EventStore,
  type LogPosition,
  type ReadStreamOptions,
  type RecordedEvent,
} from '../eventstore/port.ts';
import { chainKeyOf } from './chainKey.ts';
import { chainEvents, verifyStream, type ChainBreak } from './hashChain.ts';

/** The stream of the seals (no `-`, so no user stream can have its name). */
export const SEALS_STREAM = 'seals';

/** The event type of a seal. */
export const CHAIN_SEALED = 'ChainSealed';

/** How often the log is sealed while it changes. */
export const SEAL_INTERVAL_MS = 60_000;

/**
 * Events a seal reads at a time from a store without `chainHeads` (EventStoreDB), the event loop free in between.
 * A page of the SQLite log's events (read and parsed) took 0.44 ms at the median and 1.02 ms at the 99th
 * percentile at 100, against 2.1 and 5.6 ms at 500 (100,000 alert events): a tick arriving during a seal waits
 * for one page at most.
 */
const SEAL_PAGE = 100;

/**
 * Events a seal scans at a time where the store tells the chain heads itself (`EventStore.chainHeads`, SQLite):
 * no event is parsed. 100,000 events took 61 to 88 ms at 2,000 a page (the longest turn of the event loop about
 * 2 ms), against 428 to 609 ms read and parsed 100 a page; 5,000 a page gave turns of 7 ms (`npm run bench --
 * seal`).
 */
const SEAL_SCAN = 2_000;

/** One sealed stream head. */
export interface SealedHead {
  /** The revision of the stream's last event when sealed. */
  readonly revision: number;
  /** That event's hash. */
  readonly hash: string;
}

/** What a seal records. */
export interface ChainSealedData {
  /** The log position the seal covers up to. */
  readonly through: string;
  /** The heads of the user streams that changed since the previous seal. */
  readonly heads: Readonly<Record<string, SealedHead>>;
  /** When it was sealed. */
  readonly at: string;
}

/** The seals as a verifier reads them. */
export interface Seals {
  /** The last sealed head of each stream, with the position of its seal. */
  readonly heads: ReadonlyMap<string, SealedHead & { readonly position: LogPosition }>;
  /** Where the log started keying every event (the first seal's `through`), or null when never sealed. */
  readonly keyedSince: LogPosition | null;
  /** A break in the chain of the seals themselves, or null. */
  readonly broken: ChainBreak | null;
}

async function readSeals(events: EventStore, options?: ReadStreamOptions): Promise<RecordedEvent<ChainSealedData>[]> {
  try {
    return (await events.readStream(SEALS_STREAM, options)) as RecordedEvent<ChainSealedData>[];
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
}

/** The last seal of a log, or undefined before the first. */
async function lastSeal(events: EventStore): Promise<RecordedEvent<ChainSealedData> | undefined> {
  return (await readSeals(events, { direction: 'backwards', maxCount: 1 }))[0];
}

/** Reads and checks the seals of a log. */
export async function loadSeals(events: EventStore): Promise<Seals> {
  const seals = await readSeals(events);
  const broken = verifyStream(seals, { key: chainKeyOf(events) });
  const heads = new Map<string, SealedHead & { position: LogPosition }>();
  for (const seal of broken ? [] : seals) {
    for (const [stream, head] of Object.entries(seal.data.heads))
      heads.set(stream, { ...head, position: seal.position });
  }
  const first = seals[0];
  return { heads, keyedSince: first ? parsePosition(first.data.through) : null, broken };
}

/**
 * Checks a user stream against its last seal: the sealed revision must still be there with the sealed hash.
 * `events` are the stream's events in revision order (none when the stream is gone).
 */
export function checkSealed(stream: string, events: readonly RecordedEvent[], seals: Seals): ChainBreak | null {
  const sealed = seals.heads.get(stream);
  if (!sealed) return null;
  const event = events.find((e) => e.revision === sealed.revision);
  if (!event) {
    const last = events.at(-1);
    return {
      stream,
      revision: sealed.revision,
      eventId: last?.id ?? '',
      reason: `the stream ends at revision ${last?.revision ?? 'none'} but was sealed at revision ${sealed.revision}: events were deleted`,
    };
  }
  if (event.metadata.hash !== sealed.hash) {
    return {
      stream,
      revision: sealed.revision,
      eventId: event.id,
      reason: 'the hash differs from the sealed one: the chain was rewritten',
    };
  }
  return null;
}

/** Whether a stream is a user's (its events chained, sealed): not the seals', and named `<concern>-<id>`. */
function isUserStream(streamId: string): boolean {
  return streamId !== SEALS_STREAM && streamId.includes('-');
}

/** Whether an event is part of a user's chained stream. */
function isUserEvent(event: RecordedEvent): boolean {
  return isUserStream(event.streamId) && typeof event.metadata.hash === 'string';
}

/** A running sealer. */
export interface Sealer {
  /** Records a seal now if anything changed since the last one (or none exists yet). */
  sealNow(): Promise<void>;
  /** Stops the timer, letting a seal being written finish. */
  stop(): Promise<void>;
}

/**
 * Seals the log at start (the first seal of a log marks where keying began, each later one covers what the
 * previous run wrote) and every `intervalMs` while it changes; one process per log runs it (the one running the
 * projections).
 */
export function startSealer(
  events: EventStore,
  options: { intervalMs?: number; onError?: (error: unknown) => void; now?: () => Date } = {},
): Sealer {
  const key = chainKeyOf(events);
  const now = options.now ?? (() => new Date());
  let running: Promise<void> = Promise.resolve();

  const sealOnce = async (): Promise<void> => {
    if (!key) return;
    const previous = await lastSeal(events);
    let through = previous ? (parsePosition(previous.data.through) ?? START) : START;
    const heads: Record<string, SealedHead> = {};
    for (;;) {
      // A page at a time, the event loop free in between: a minute of a busy log is thousands of events.
      await new Promise((resolve) => setImmediate(resolve));
      if (events.chainHeads) {
        const page = await events.chainHeads({ fromPosition: through, maxCount: SEAL_SCAN });
        for (const head of page.heads) {
          if (isUserStream(head.streamId)) heads[head.streamId] = { revision: head.revision, hash: head.hash };
        }
        if (comparePositions(page.through, through) > 0) through = page.through;
        if (page.scanned < SEAL_SCAN) break;
        continue;
      }
      const page = await events.readAll({ fromPosition: through, maxCount: SEAL_PAGE });
      for (const event of page) {
        if (isUserEvent(event))
          heads[event.streamId] = { revision: event.revision, hash: event.metadata.hash as string };
        if (comparePositions(event.position, through) > 0) through = event.position;
      }
      if (page.length < SEAL_PAGE) break;
    }
    if (previous && Object.keys(heads).length === 0) return;
    const data: ChainSealedData = { through: formatPosition(through), heads, at: now().toISOString() };
    const [seal] = chainEvents(SEALS_STREAM, previous, [{ id: crypto.randomUUID(), type: CHAIN_SEALED, data }], key);
    try {
      await events.appendToStream(SEALS_STREAM, [seal!], {
        expectedRevision: previous ? previous.revision : 'no_stream',
      });
    } catch (error) {
      // Another sealer got there first: its seal covers the same heads.
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  };

  const sealNow = (): Promise<void> => {
    running = running.then(sealOnce, sealOnce);
    return running;
  };
  const report = (error: unknown): void => options.onError?.(error);
  sealNow().catch(report);
  const timer = setInterval(() => void sealNow().catch(report), options.intervalMs ?? SEAL_INTERVAL_MS);
  timer.unref();
  return {
    sealNow,
    stop: async () => {
      clearInterval(timer);
      // No seal on the way out: the projections have stopped, and the next start seals first thing.
      await running.catch(report);
    },
  };
}
