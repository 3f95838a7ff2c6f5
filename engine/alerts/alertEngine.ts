/**
 * The alert engine: keeps the armed-alert index up to date from the log, evaluates every tick against it and
 * fires what the tick meets by appending `AlertTriggered` through the alerts decider, with the command id
 * derived from the alert and its arming (`triggerCommandId`) and actor `engine`, so a retried or replayed
 * trigger appends nothing and the notification is made once.
 *
 * The index is built by a consumer of the checkpointed runner (`startConsumer`) whose documents are the
 * index's durable state: one document per alert (armed or triggered, with its arming count), committed with
 * the checkpoint. A start reads the documents (O(alerts)) and catches up from the checkpoint, instead of
 * re-reading every alert event since the beginning of the log; the sorted arrays are rebuilt in memory from
 * the documents, since only the documents need to survive a restart.
 */
import {
  ALERTS_CONCERN,
  ALERT_EVENT_TYPES,
  alertOf,
  alertsDecider,
  expireCommandId,
  alertKey,
  triggerCommandId,
  type Alert,
  type AlertTriggered,
  type AlertsCommand,
  type AlertsEvent,
  type AlertsState,
  type ExpireAlert,
  type TriggerAlert,
} from '../../domain/alerts/alerts.ts';
import type { AlertFrequency, FiredLevels } from '../../domain/alerts/conditions.ts';
import type { CommandMeta, Decider } from '../../domain/decider.ts';
import { eventIdFor, streamName } from '../../domain/ids.ts';
import type { SmaPeriod } from '../../domain/screener/query.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import type { EventStore, LogPosition, RecordedEvent } from '../../platform/eventstore/port.ts';
import { KeyedQueue } from '../../platform/keyedQueue.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import {
  startConsumer,
  type Consumer,
  type ConsumerLag,
  type ConsumerRunner,
  type ConsumerTx,
} from '../../platform/subscriptions/runner.ts';
import { changePctOf, type LiveQuotes, type PriceMove } from '../quotes/liveQuotes.ts';
import type { ClosedDay, Tick, TickListener } from '../ticks/tick.ts';
import { AlertIndex, armedAlertOf, isLadderCondition, type ArmedAlert } from './alertIndex.ts';
import { atCloseOnly, evaluateClose, evaluateLatest, evaluateTicks, type FireHandler } from './evaluate.ts';
import type { MarketClock } from '../ticks/marketClock.ts';
import { TradingDays } from './tradingDay.ts';

/** The consumer name of the engine's index (plus `:<instance>` when several engines share a read-model store). */
export const ALERT_ENGINE_CONSUMER = 'engine:alerts';

/** Version of the index documents; a change rebuilds them from the whole log. */
export const ALERT_ENGINE_VERSION = 2;

/** The collection of the index documents (plus `-<instance>`). */
export const ALERT_ENGINE_COLLECTION = 'enginealerts';

const STREAM_PREFIX = `${ALERTS_CONCERN}-`;

/** How often the engine looks for alerts past their expiry, in milliseconds. */
export const EXPIRY_CHECK_MS = 1000;

/** The durable document of one alert: what the index needs, and the arming count an update continues from. */
export interface IndexedAlertDocument {
  /** The alert's owner. */
  readonly userId: string;
  /** The alert as the alerts decider's `evolve` left it. */
  readonly alert: Alert;
}

/** A trigger the engine appended. */
export interface EngineTrigger {
  /** The alert's owner. */
  readonly userId: string;
  /** The event's id (the notification's id in the read model), derived from the trigger's command id. */
  readonly eventId: string;
  /** The `AlertTriggered` event appended. */
  readonly event: AlertTriggered;
  /** Its log position (read models that include it are at or past it). */
  readonly position: LogPosition | undefined;
}

/** Options of {@link AlertEngine}. */
export interface AlertEngineOptions {
  /** The event log: the alerts are read from it and the triggers appended to it. */
  readonly events: EventStore;
  /** Where the index documents and their checkpoint live. */
  readonly readModels: ReadModelStore;
  /** The live quotes: the engine applies every tick to them, then evaluates it. */
  readonly quotes: LiveQuotes;
  /** Distinguishes engines sharing one read-model store (lower-case letters and digits). */
  readonly instance?: string;
  /**
   * Called once a trigger is durable. Two engines that race on one alert may both report it (the store takes
   * the second append of the same event ids as a retry): the event id, derived from the trigger's command id,
   * tells them apart.
   */
  readonly onTriggered?: (trigger: EngineTrigger) => void;
  /** Called when the index consumer or an append fails. */
  readonly onError?: (error: Error) => void;
  /** Milliseconds now, for the tick rate (default `Date.now`). */
  readonly now?: () => number;
  /** Concurrency conflicts retried per trigger (default 10). */
  readonly maxRetries?: number;
  /** How often to look for expired alerts (default {@link EXPIRY_CHECK_MS}); 0 only when told (`expire`). */
  readonly expiryCheckMs?: number;
}

/** Figures for `/metrics`. */
export interface AlertEngineStats {
  /** Ticks evaluated since the start. */
  readonly ticks: number;
  /** Ticks per second over the last window of about a second. */
  readonly ticksPerSec: number;
  /** Total time spent evaluating ticks (quotes and index), in seconds. */
  readonly evaluationSeconds: number;
  /** Mean evaluation time per tick, in microseconds. */
  readonly evaluationMicrosPerTick: number;
  /** Ticks received before the index was ready (not evaluated). */
  readonly droppedTicks: number;
  /** Alerts armed in the index. */
  readonly armed: number;
  /** Symbols with alerts. */
  readonly symbols: number;
  /** Triggers: fired by a tick, appended, found already recorded (a replay), decided nothing (alert changed), failed. */
  readonly triggers: {
    readonly fired: number;
    readonly appended: number;
    readonly replayed: number;
    readonly unchanged: number;
    readonly failed: number;
  };
  /** Alerts expired by the engine. */
  readonly expired: number;
  /** Entries of the list of expiries watched (each armed or paused alert with one, and some not yet dropped). */
  readonly watchedExpiries: number;
  /** Triggers whose append is under way. */
  readonly pending: number;
}

/**
 * The alerts decider, firing only the arming the engine evaluated: when the alert was changed (re-armed with
 * another definition) between the tick and the append, the trigger is stale and decides nothing.
 */
export function triggerDecider(arming: number): Decider<AlertsCommand, AlertsEvent, AlertsState> {
  return {
    ...alertsDecider,
    decide: (command, state) => {
      if (command.type === 'TriggerAlert') {
        const id = String(command.data.alertId).toLowerCase();
        const alert = alertOf(state, id);
        if (alert === undefined || alert.arming !== arming) return [];
      }
      return alertsDecider.decide(command, state);
    },
  };
}

const NAME_PATTERN = /^[a-z0-9]{1,32}$/;

/** Entries the expiry list may hold beyond twice those kept at its last compaction. */
const EXPIRIES_SLACK = 64;

/** Evaluates ticks against the armed alerts of every user and fires them exactly once per arming. */
export class AlertEngine implements TickListener {
  /** The alerts evaluated on every tick. */
  private readonly index: AlertIndex;
  /** The `once_per_bar_close` alerts, evaluated on each day's closing bar. */
  private readonly closing: AlertIndex;
  /** The trading day of a tick (see {@link AlertEngine.useSessions}). */
  private days = new TradingDays();
  /**
   * Armed and paused alerts with an expiry: `[ms, key, arming]`, soonest last. An entry stays when its alert is
   * deleted, paused, resumed or changed (a new one is added for what it becomes); they are dropped once they
   * outnumber those kept at the last compaction twice over (see {@link AlertEngine.compactExpiries}).
   */
  private expiries: [number, string, number][] = [];
  private expiriesCompacted = 0;
  private expiryTimer: ReturnType<typeof setInterval> | undefined;
  private readonly docs = new Map<string, IndexedAlertDocument>();
  /** `<key>#<arming>` of the triggers being appended: kept out of the index until the append settles. */
  private readonly inFlight = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  /** Appends to one stream run one after the other, so a user's simultaneous triggers do not conflict. */
  private readonly queues = new KeyedQueue();
  private readonly fired: ArmedAlert[] = [];
  private readonly name: string;
  private readonly collection: string;
  private readonly now: () => number;
  private runner: ConsumerRunner | undefined;
  private running = false;
  /** The triggers fired by the batch being evaluated. */
  private batchTasks: Promise<void>[] | null = null;
  private counts = { ticks: 0, dropped: 0, fired: 0, appended: 0, replayed: 0, unchanged: 0, failed: 0, expired: 0 };
  private evaluationMs = 0;
  private windowStart = 0;
  private windowTicks = 0;
  private lastRate = 0;

  constructor(private readonly options: AlertEngineOptions) {
    if (options.instance !== undefined && !NAME_PATTERN.test(options.instance)) {
      throw new RangeError(`instance ${JSON.stringify(options.instance)} must be 1 to 32 lower-case letters or digits`);
    }
    this.name = options.instance ? `${ALERT_ENGINE_CONSUMER}:${options.instance}` : ALERT_ENGINE_CONSUMER;
    this.collection = options.instance ? `${ALERT_ENGINE_COLLECTION}-${options.instance}` : ALERT_ENGINE_COLLECTION;
    this.now = options.now ?? Date.now;
    this.index = new AlertIndex((symbol) => options.quotes.history(symbol));
    this.closing = new AlertIndex((symbol) => options.quotes.history(symbol));
  }

  /**
   * Keys the once-per-bar firings by the sessions of `clock`, the demo clock's (a trading day every few real
   * minutes, each rolled by its close), rather than by New York dates. Called before the first tick.
   */
  useSessions(clock: Pick<MarketClock, 'sessionAt'>): void {
    this.days = new TradingDays(clock);
  }

  private indexOf(alert: { readonly frequency: AlertFrequency }): AlertIndex {
    return atCloseOnly(alert.frequency) ? this.closing : this.index;
  }

  private arm(userId: string, alert: Alert): void {
    const armed = armedAlertOf(userId, alert);
    this.indexOf(alert).add(armed);
  }

  private disarm(key: string): void {
    this.index.remove(key);
    this.closing.remove(key);
  }

  private watchExpiry(userId: string, alert: Alert): void {
    if (alert.expires === null || (alert.status !== 'armed' && alert.status !== 'paused')) return;
    const entry: [number, string, number] = [Date.parse(alert.expires), alertKey(userId, alert.id), alert.arming];
    let lo = 0;
    let hi = this.expiries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.expiries[mid]![0] > entry[0]) lo = mid + 1;
      else hi = mid;
    }
    this.expiries.splice(lo, 0, entry);
    if (this.expiries.length > 2 * this.expiriesCompacted + EXPIRIES_SLACK) this.compactExpiries();
  }

  /**
   * Keeps of the expiry list only each alert's current entry (its document armed or paused, of the same arming and
   * expiry), so an alert paused and resumed again and again, or deleted long before its expiry, leaves nothing.
   */
  private compactExpiries(): void {
    const kept = new Set<string>();
    this.expiries = this.expiries.filter(([ms, key, arming]) => {
      const alert = this.docs.get(key)?.alert;
      if (alert === undefined || alert.arming !== arming || alert.expires === null) return false;
      if ((alert.status !== 'armed' && alert.status !== 'paused') || Date.parse(alert.expires) !== ms) return false;
      if (kept.has(key)) return false;
      kept.add(key);
      return true;
    });
    this.expiriesCompacted = this.expiries.length;
  }

  /**
   * Expires every armed or paused alert whose expiry is at or before `nowMs` (default the engine's clock), with
   * `ExpireAlert` under a command id of the alert and its arming; resolves once the appends are done.
   */
  async expire(nowMs = this.now()): Promise<void> {
    const tasks: Promise<void>[] = [];
    while (this.expiries.length > 0 && this.expiries.at(-1)![0] <= nowMs) {
      const [ms, key, arming] = this.expiries.pop()!;
      const doc = this.docs.get(key);
      if (doc === undefined || doc.alert.arming !== arming) continue;
      if (doc.alert.status !== 'armed' && doc.alert.status !== 'paused') continue;
      this.disarm(key);
      tasks.push(this.expireAlert(doc, Math.max(ms, nowMs)));
    }
    await Promise.all(tasks);
  }

  private expireAlert(doc: IndexedAlertDocument, atMs: number): Promise<void> {
    const { alert, userId } = doc;
    const stream = streamName(ALERTS_CONCERN, userId);
    const at = new Date(atMs).toISOString();
    const command: ExpireAlert = { type: 'ExpireAlert', data: { alertId: alert.id, at } };
    const meta: CommandMeta = { commandId: expireCommandId(alert), userId, at, actor: 'engine' };
    const task = this.queues
      .run(stream, () =>
        handleCommand(this.options.events, alertsDecider, stream, command, meta, {
          maxRetries: this.options.maxRetries ?? 10,
        }),
      )
      .then((outcome) => {
        if (outcome.events.some((e) => e.type === 'AlertExpired')) this.counts.expired += 1;
      })
      .catch((error: unknown) => {
        this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
        this.watchExpiry(userId, alert);
      })
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
    return task;
  }

  /**
   * Loads the index documents, starts the consumer from its checkpoint and resolves once it has caught up
   * with the log; ticks are evaluated from then on.
   */
  async start(): Promise<void> {
    if (this.runner) throw new Error('the alert engine is already started');
    const { readModels, events } = this.options;
    const checkpoint = await readModels.readCheckpoint(this.name);
    if (checkpoint?.version === ALERT_ENGINE_VERSION) {
      for (const { key, doc } of await readModels.list<IndexedAlertDocument>(this.collection)) {
        this.docs.set(key, doc);
        if (doc.alert.status === 'armed') this.arm(doc.userId, doc.alert);
        this.watchExpiry(doc.userId, doc.alert);
      }
    }
    this.runner = await startConsumer(events, readModels, this.consumer(), {
      onError: (error) => this.options.onError?.(error),
    });
    await this.runner.caughtUp;
    // The alerts just armed go among the sorted levels now, rather than on their symbols' first ticks.
    this.index.mergeArmed();
    this.closing.mergeArmed();
    this.windowStart = this.now();
    this.running = true;
    const every = this.options.expiryCheckMs ?? EXPIRY_CHECK_MS;
    if (every > 0) {
      this.expiryTimer = setInterval(() => void this.expire(), every);
      this.expiryTimer.unref();
    }
  }

  /**
   * Applies each tick to the quotes and fires the alerts it meets; ticks before the start are dropped. When the
   * batch fired alerts, answers a promise that resolves once their triggers are appended (or have failed and
   * are armed again), so a durable bus acknowledges the batch only then.
   */
  onTicks(ticks: readonly Tick[]): Promise<void> | undefined {
    if (!this.running) {
      this.counts.dropped += ticks.length;
      return undefined;
    }
    const started = performance.now();
    const tasks: Promise<void>[] = [];
    this.batchTasks = tasks;
    try {
      evaluateTicks(ticks, this.options.quotes, this.index, this.days, this.onFire, this.fired);
    } finally {
      this.batchTasks = null;
    }
    this.evaluationMs += performance.now() - started;
    this.counts.ticks += ticks.length;
    this.windowTicks += ticks.length;
    this.rollWindow();
    return tasks.length === 0 ? undefined : Promise.all(tasks).then(() => undefined);
  }

  /**
   * After these quotes took back the session so far from the last run (a restart in its middle): evaluates each of
   * `symbols`' latest price as its first tick, so the alerts armed before the restart are measured from it (a
   * crossing from it on the next tick fires; a level condition that holds at it fires now, as the next tick's
   * would have). Without it, the first tick after a restart only set the alerts' previous values, and the crossing
   * it made from the last price before the restart was lost.
   */
  resumeFrom(symbols: Iterable<string>): void {
    if (!this.running) return;
    evaluateLatest(symbols, this.options.quotes, this.index, this.days, this.onFire, this.now(), this.fired);
  }

  /**
   * Ends a trading day: the `once_per_bar_close` alerts are evaluated on each symbol's closing bar, then the
   * quotes roll and every indicator series and moving level moves on. The triggers are appended in the
   * background (`flush` waits for them).
   */
  onDayClosed(day: ClosedDay): void {
    const { quotes } = this.options;
    // A close these quotes have already (delivered twice): its alerts were evaluated, its series moved on.
    if (quotes.hasClosed(day)) return;
    if (this.running) evaluateClose(day, quotes, this.closing, this.onFire, this.fired);
    quotes.roll(day);
    this.index.roll();
    this.closing.roll();
  }

  /**
   * Resolves when the triggers fired so far have been appended (or have failed), not waiting for those fired
   * after the call (the session keeper's wait, under a feed that never stops).
   */
  async appended(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  /** Resolves when every trigger fired so far has been appended (or has failed). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Resolves once the index includes every event up to `position` (e.g. an alert just created). */
  waitFor(position: LogPosition): Promise<void> {
    if (!this.runner) return Promise.reject(new Error('the alert engine is not started'));
    return this.runner.waitFor(position);
  }

  /** How far the index is behind the log. */
  lag(): Promise<ConsumerLag> {
    if (!this.runner) return Promise.reject(new Error('the alert engine is not started'));
    return this.runner.lag();
  }

  /** Stops evaluating, waits for the triggers under way, and stops the consumer (committing what it applied). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.expiryTimer !== undefined) clearInterval(this.expiryTimer);
    this.expiryTimer = undefined;
    await this.flush();
    await this.runner?.stop();
  }

  /** Whether the index has caught up and ticks are evaluated. */
  get isRunning(): boolean {
    return this.running;
  }

  /** The symbols with an armed alert (both indexes), from memory. */
  armedSymbols(): Set<string> {
    return new Set([...this.index.armedSymbols(), ...this.closing.armedSymbols()]);
  }

  /** The armed alerts of a symbol (for inspection). */
  armedOf(symbol: string): ArmedAlert[] {
    return [...this.index.alertsOf(symbol), ...this.closing.alertsOf(symbol)];
  }

  /** Figures for `/metrics`. */
  stats(): AlertEngineStats {
    this.rollWindow();
    const c = this.counts;
    return {
      ticks: c.ticks,
      ticksPerSec: this.lastRate,
      evaluationSeconds: this.evaluationMs / 1000,
      evaluationMicrosPerTick: c.ticks > 0 ? (this.evaluationMs * 1000) / c.ticks : 0,
      droppedTicks: c.dropped,
      armed: this.index.size + this.closing.size,
      symbols: this.index.symbolCount,
      triggers: {
        fired: c.fired,
        appended: c.appended,
        replayed: c.replayed,
        unchanged: c.unchanged,
        failed: c.failed,
      },
      expired: c.expired,
      watchedExpiries: this.expiries.length,
      pending: this.pending.size,
    };
  }

  private rollWindow(): void {
    const now = this.now();
    const elapsed = now - this.windowStart;
    if (elapsed < 1000) return;
    this.lastRate = Math.round((this.windowTicks * 1000) / elapsed);
    this.windowStart = now;
    this.windowTicks = 0;
  }

  /** The index consumer: folds each alert with the decider's own `evolve` and keeps the index in step. */
  private consumer(): Consumer {
    return {
      name: this.name,
      version: ALERT_ENGINE_VERSION,
      collections: [this.collection],
      filter: { streamPrefixes: [STREAM_PREFIX], eventTypes: ALERT_EVENT_TYPES },
      // The index is all in memory: a store that lost it (Redis restarted without its data) gets it back whole.
      restore: () => [...this.docs].map(([key, doc]) => ({ collection: this.collection, key, doc })),
      handle: (event: RecordedEvent, tx: ConsumerTx) => {
        const alertId = (event.data as { alertId?: unknown } | null)?.alertId;
        if (typeof alertId !== 'string') return;
        const userId = event.streamId.slice(STREAM_PREFIX.length);
        const key = alertKey(userId, alertId);
        const before = this.docs.get(key);
        const state = alertsDecider.evolve({ alerts: before ? [before.alert] : [] }, {
          type: event.type,
          data: event.data,
        } as AlertsEvent);
        const alert = state.alerts.find((a) => a.id === alertId);
        if (alert === undefined) {
          this.disarm(key);
          if (before !== undefined) {
            this.docs.delete(key);
            tx.delete(this.collection, key);
          }
          return;
        }
        const doc: IndexedAlertDocument = { userId, alert };
        this.docs.set(key, doc);
        tx.put(this.collection, key, doc);
        // A repeating alert that fired stays where it is, its frequency state brought up to the log.
        const same =
          before !== undefined && before.alert.arming === alert.arming && before.alert.status === alert.status;
        if (same && event.type === 'AlertTriggered') {
          this.followLog(key, alert);
          return;
        }
        this.disarm(key);
        if (alert.status === 'armed' && !this.inFlight.has(`${key}#${alert.arming}`)) this.arm(userId, alert);
        if (!same) this.watchExpiry(userId, alert);
      },
    };
  }

  /**
   * Brings an armed alert's frequency state up to the log when the log has firings the index did not make (an
   * index built again from the log, a trigger appended before a restart and folded only after it, another
   * engine's): the count and the day of the last firing; and a level condition that fired is taken to hold
   * until a tick shows it does not, so it fires again only once it stopped holding.
   */
  private followLog(key: string, alert: Alert): void {
    const index = this.indexOf(alert);
    const armed = index.get(key);
    if (armed === undefined || armed.arming !== alert.arming) return;
    if (alert.firings > armed.firings) {
      armed.firings = alert.firings;
      index.takeAsHeld(armed);
    }
    const day = alert.lastFiredDay;
    if (day !== null && (armed.firedDay === null || day > armed.firedDay)) armed.firedDay = day;
  }

  private readonly onFire: FireHandler = (alert, tick, cents, bar) => this.fire(alert, tick, cents, bar);

  /**
   * Fires an alert the index met on a tick at `cents`; `bar` is the day's volume and previous close then when
   * they are not the symbol's quote (a closing bar).
   */
  private fire(alert: ArmedAlert, tick: Tick, cents: number, bar?: Pick<PriceMove, 'volume' | 'prevCloseCents'>): void {
    if (tick.ts >= alert.expiresMs) {
      // Past its expiry: it stops with an event of its own instead.
      const doc = this.docs.get(alert.key);
      this.disarm(alert.key);
      if (doc !== undefined && doc.alert.arming === alert.arming) {
        const task = this.expireAlert(doc, tick.ts);
        this.batchTasks?.push(task);
      }
      return;
    }
    this.counts.fired += 1;
    const once = alert.frequency === 'once';
    const flight = `${alert.key}#${alert.arming}`;
    if (once) this.inFlight.add(flight);
    const { quotes, events } = this.options;
    const at = new Date(tick.ts).toISOString();
    const perBar = alert.frequency === 'once_per_bar' || alert.frequency === 'once_per_bar_close';
    const day = perBar ? alert.firedOn : null;
    const everyTime = alert.frequency === 'every_time';
    const smaRef = alert.condition.value;
    const smaPeriod =
      alert.condition.source === 'price' && typeof smaRef === 'object' && smaRef?.ref.startsWith('sma:')
        ? (Number(smaRef.ref.slice(4)) as SmaPeriod)
        : null;
    // The levels that are not constants (another series, a moving level), as they were, for the message.
    const condition = alert.condition;
    let levels: FiredLevels | null = null;
    if (condition.bars !== null || !isLadderCondition(condition)) {
      const move = bar ?? quotes.move(alert.symbol);
      levels = this.indexOf(alert).firedLevels(
        alert.symbol,
        condition,
        cents,
        move?.volume ?? 0,
        move?.prevCloseCents ?? NaN,
      );
    }
    const data = {
      alertId: alert.alertId,
      price: cents / 100,
      changepct: bar === undefined ? quotes.changePct(alert.symbol) : changePctOf(cents, bar.prevCloseCents),
      at,
      sma: smaPeriod === null ? null : quotes.sma(alert.symbol, smaPeriod),
      value: Number.isFinite(alert.firedValue) ? alert.firedValue : null,
      level: levels?.level ?? null,
      upper: levels?.upper ?? null,
      day,
    };
    const stream = streamName(ALERTS_CONCERN, alert.userId);
    const decider = triggerDecider(alert.arming);
    const maxRetries = this.options.maxRetries ?? 10;
    const task = this.queues
      .run(stream, () => {
        // A repeating trigger is numbered when its turn comes, after the firings recorded so far: one whose append
        // failed leaves the count where it was, so the next trigger takes its number.
        const firing = everyTime ? alert.firings + 1 : null;
        const command: TriggerAlert = { type: 'TriggerAlert', data: { ...data, firing } };
        const commandId = triggerCommandId({ id: alert.alertId, arming: alert.arming, day, firing });
        const meta: CommandMeta = { commandId, userId: alert.userId, at, actor: 'engine' };
        return handleCommand(events, decider, stream, command, meta, { maxRetries }).then((outcome) => ({
          outcome,
          commandId,
        }));
      })
      .then(({ outcome, commandId }) => {
        if (everyTime) {
          const recorded = alertOf(outcome.state, alert.alertId);
          if (recorded !== undefined && recorded.arming === alert.arming) {
            alert.firings = Math.max(alert.firings, recorded.firings);
          }
        }
        if (outcome.replayed) this.counts.replayed += 1;
        else if (outcome.events.length === 0) this.counts.unchanged += 1;
        else {
          this.counts.appended += 1;
          const event = outcome.events.find((e): e is AlertTriggered => e.type === 'AlertTriggered');
          if (event) {
            const eventId = eventIdFor(`${stream}/${commandId}`, outcome.events.indexOf(event));
            this.options.onTriggered?.({ userId: alert.userId, eventId, event, position: outcome.position });
          }
        }
      })
      .catch((error: unknown) => {
        this.counts.failed += 1;
        this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
        // Armed again, so a later tick retries under the same command id.
        const doc = this.docs.get(alert.key);
        const index = this.indexOf(alert);
        if (once && doc?.alert.status === 'armed' && doc.alert.arming === alert.arming && !index.has(alert.key)) {
          index.add(alert);
        }
      })
      .finally(() => {
        if (once) this.inFlight.delete(flight);
        this.pending.delete(task);
      });
    this.pending.add(task);
    this.batchTasks?.push(task);
  }
}
