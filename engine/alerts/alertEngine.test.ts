import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  alertsDecider,
  triggerCommandId,
  type AlertInput,
  type AlertTriggeredData,
  type AlertsEvent,
} from '../../domain/alerts/alerts.ts';
import { priceCondition } from '../../domain/alerts/conditions.ts';
import { eventIdFor } from '../../domain/ids.ts';
import type { DailyBar } from '../../domain/market/types.ts';
import type { Notification } from '../../domain/notifications/notifications.ts';
import { given } from '../../domain/testing/givenWhenThen.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import {
  StreamNotFoundError,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
} from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { startConsumer } from '../../platform/subscriptions/runner.ts';
import {
  notificationPrefix,
  notificationsProjection,
} from '../../projections/notifications/notifications.projection.ts';
import { projectionConsumer } from '../../projections/projection.ts';
import { LiveQuotes } from '../quotes/liveQuotes.ts';
import type { Tick } from '../ticks/tick.ts';
import { ALERT_ENGINE_COLLECTION, AlertEngine, triggerDecider, type EngineTrigger } from './alertEngine.ts';

const AT = '2025-01-02T15:00:00.000Z';
const T0 = Date.parse(AT);

/** 60 finished days: AAPL closes at 189.00 then 189.50, MSFT flat at 100.00 (every SMA level is 100.00). */
function seeds(): { symbol: string; bars: DailyBar[] }[] {
  const bars = (closes: number[]): DailyBar[] =>
    closes.map((close, i) => ({
      date: new Date(Date.UTC(2024, 8, 1) + i * 86_400_000).toISOString().slice(0, 10),
      open: close,
      high: close,
      low: close,
      close,
      volume: 1000,
    }));
  return [
    { symbol: 'AAPL', bars: bars([...Array.from({ length: 59 }, () => 189), 189.5]) },
    { symbol: 'MSFT', bars: bars(Array.from({ length: 60 }, () => 100)) },
  ];
}

function ticks(symbol: string, ...prices: number[]): Tick[] {
  return prices.map((price, i) => ({ symbol, price, size: 100, ts: T0 + i * 1000 }));
}

/** The store, except that its next `failures` appends of an `AlertTriggered` fail (as a full disk would). */
function failingTriggers(store: EventStore, failures: number): EventStore {
  let left = failures;
  return {
    appendToStream: (stream, events, options) => {
      if (left > 0 && events.some((e) => e.type === 'AlertTriggered')) {
        left -= 1;
        return Promise.reject(new Error('the disk is full'));
      }
      return store.appendToStream(stream, events, options);
    },
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (handlers, options) => store.subscribeToAll(handlers, options),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
}

interface Stores {
  readonly events: EventStore;
  readonly readModels: ReadModelStore;
  close(): Promise<void>;
}

function openStores(dir: string, readModelsFile = 'readmodels.db'): Stores {
  const events = openSqliteEventStore({ file: join(dir, 'events.db') });
  const readModels = openSqliteReadModelStore({ file: join(dir, readModelsFile) });
  return {
    events,
    readModels,
    close: async () => {
      await readModels.close();
      await events.close();
    },
  };
}

async function alertCommand(
  events: EventStore,
  userId: string,
  command:
    | { type: 'CreateAlert' | 'UpdateAlert'; data: Partial<AlertInput> }
    | { type: 'DeleteAlert'; data: { alertId: string } },
): Promise<{ alertId: string; position: LogPosition }> {
  const data =
    command.type === 'DeleteAlert'
      ? command.data
      : {
          alertId: randomUUID(),
          symbol: 'AAPL',
          kind: 'PRICE' as const,
          alerttype: 'U' as const,
          threshold: 190,
          period: null,
          at: AT,
          ...command.data,
        };
  const outcome = await handleCommand(
    events,
    alertsDecider,
    `alerts-${userId}`,
    { type: command.type, data } as never,
    {
      commandId: randomUUID(),
      userId,
      at: AT,
      actor: `user:${userId}`,
    },
  );
  return { alertId: data.alertId, position: outcome.position! };
}

async function triggered(events: EventStore, userId: string): Promise<RecordedEvent<AlertTriggeredData>[]> {
  try {
    const all = await events.readStream(`alerts-${userId}`);
    return all.filter((e) => e.type === 'AlertTriggered') as RecordedEvent<AlertTriggeredData>[];
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
}

describe('alert engine on the SQLite store', function () {
  let dir: string;
  let stores: Stores;
  let engine: AlertEngine;
  let fired: EngineTrigger[];
  let errors: Error[];

  function newEngine(
    s: Stores = stores,
    options: { instance?: string; now?: () => number; quotes?: LiveQuotes } = {},
  ): AlertEngine {
    return new AlertEngine({
      events: s.events,
      readModels: s.readModels,
      quotes: new LiveQuotes(seeds()),
      onTriggered: (t) => fired.push(t),
      onError: (e) => errors.push(e),
      ...options,
    });
  }

  async function feed(e: AlertEngine, batch: Tick[]): Promise<void> {
    void e.onTicks(batch);
    await e.flush();
  }

  beforeEach(async function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-engine-'));
    stores = openStores(dir);
    fired = [];
    errors = [];
    engine = newEngine();
    await engine.start();
  });

  afterEach(async function () {
    await engine.stop();
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
    expect(errors).to.deep.equal([]);
  });

  it('fires a price alert once, on the first tick at the threshold, with the notification in the event', async function () {
    const { alertId, position } = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data: {} });
    await engine.waitFor(position);
    await feed(engine, ticks('AAPL', 189.99, 190, 190.5, 191));
    const events = await triggered(stores.events, 'u1');
    expect(events).to.have.length(1);
    const commandId = triggerCommandId({ id: alertId, arming: 1 });
    expect(events[0]!.id).to.equal(eventIdFor(`alerts-u1/${commandId}`, 0));
    expect(events[0]!.metadata).to.include({
      actor: 'engine',
      commandId,
      userId: 'u1',
      at: new Date(T0 + 1000).toISOString(),
    });
    expect(events[0]!.data).to.deep.include({
      alertId,
      symbol: 'AAPL',
      kind: 'PRICE',
      alerttype: 'U',
      threshold: 190,
      price: 190,
      changepct: 0.26,
      notificationtype: 1,
      message: 'AAPL rose to 190.00: 190.00 (+0.26% on the day)',
    });
    expect(fired.map((t) => [t.event.data.alertId, t.eventId])).to.deep.equal([[alertId, events[0]!.id]]);
    expect(engine.stats().triggers).to.deep.include({ fired: 1, appended: 1 });
  });

  it('fires a down alert at its exact threshold, with a minus in the message', async function () {
    const { position } = await alertCommand(stores.events, 'u1', {
      type: 'CreateAlert',
      data: { alerttype: 'D', threshold: 188.01 },
    });
    await engine.waitFor(position);
    await feed(engine, ticks('AAPL', 188.02, 188.01));
    const [event] = await triggered(stores.events, 'u1');
    expect(event!.data).to.deep.include({
      price: 188.01,
      message: 'AAPL fell to 188.01: 188.01 (-0.79% on the day)',
    });
  });

  it('appends nothing when the same ticks are fed again', async function () {
    const { position } = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data: {} });
    await engine.waitFor(position);
    await feed(engine, ticks('AAPL', 189, 190.5));
    await feed(engine, ticks('AAPL', 189, 190.5));
    expect(await triggered(stores.events, 'u1')).to.have.length(1);
    expect(engine.stats().triggers.fired).to.equal(1);
  });

  it('appends nothing after a restart on the same files fed the same ticks', async function () {
    const a = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data: {} });
    const b = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data: { threshold: 250 } });
    await engine.waitFor(b.position);
    await feed(engine, ticks('AAPL', 189, 190.5));
    await engine.stop();
    await stores.close();

    stores = openStores(dir);
    engine = newEngine();
    await engine.start();
    expect(engine.armedOf('AAPL').map((x) => x.alertId)).to.deep.equal([b.alertId]);
    await feed(engine, ticks('AAPL', 189, 190.5));
    const events = await triggered(stores.events, 'u1');
    expect(events.map((e) => e.data.alertId)).to.deep.equal([a.alertId]);
    expect(engine.stats().triggers.fired).to.equal(0);
  });

  it('indexes alerts created while it was stopped when it starts again', async function () {
    await engine.stop();
    const { alertId } = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data: { threshold: 195 } });
    engine = newEngine();
    await engine.start();
    await feed(engine, ticks('AAPL', 195));
    expect((await triggered(stores.events, 'u1')).map((e) => e.data.alertId)).to.deep.equal([alertId]);
  });

  it('fires again once the user re-arms the alert, under the next arming', async function () {
    const { alertId, position } = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data: {} });
    await engine.waitFor(position);
    await feed(engine, ticks('AAPL', 190.5));
    const rearmed = await alertCommand(stores.events, 'u1', { type: 'UpdateAlert', data: { alertId, threshold: 192 } });
    await engine.waitFor(rearmed.position);
    await feed(engine, ticks('AAPL', 191, 192));
    const events = await triggered(stores.events, 'u1');
    expect(events.map((e) => [e.data.threshold, e.data.price])).to.deep.equal([
      [190, 190.5],
      [192, 192],
    ]);
    expect(events[1]!.metadata.commandId).to.equal(triggerCommandId({ id: alertId, arming: 2 }));
  });

  it('forgets a deleted alert and moves an updated one', async function () {
    const gone = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data: {} });
    const moved = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data: {} });
    await alertCommand(stores.events, 'u1', { type: 'DeleteAlert', data: { alertId: gone.alertId } });
    const last = await alertCommand(stores.events, 'u1', {
      type: 'UpdateAlert',
      data: { alertId: moved.alertId, symbol: 'AAPL', alerttype: 'D', threshold: 99 },
    });
    await engine.waitFor(last.position);
    // Above both former levels (190, up): neither fires; the updated one fires down at 99.
    await feed(engine, ticks('AAPL', 200));
    expect(await triggered(stores.events, 'u1')).to.have.length(0);
    await feed(engine, ticks('AAPL', 99));
    expect((await triggered(stores.events, 'u1')).map((e) => e.data.alertId)).to.deep.equal([moved.alertId]);
  });

  it('fires an SMA alert on the crossing, as notification type 2 with the average crossed', async function () {
    const { alertId, position } = await alertCommand(stores.events, 'u2', {
      type: 'CreateAlert',
      data: { symbol: 'MSFT', kind: 'SMA', alerttype: 'U', threshold: null, period: 20 },
    });
    await engine.waitFor(position);
    // The last close is 100.00, at the average: not below, so 100.01 does not cross; a dip below then 100.00 does.
    await feed(engine, ticks('MSFT', 100.01));
    expect(await triggered(stores.events, 'u2')).to.have.length(0);
    await feed(engine, ticks('MSFT', 99.99, 100));
    const events = await triggered(stores.events, 'u2');
    expect(events).to.have.length(1);
    expect(events[0]!.data).to.deep.include({
      alertId,
      kind: 'SMA',
      period: 20,
      price: 100,
      sma: 100,
      notificationtype: 2,
      message: 'MSFT rose to its 20-day SMA 100.00: 100.00 (+0.00% on the day)',
    });
  });

  it('moves the SMA levels at the day close', async function () {
    const { position } = await alertCommand(stores.events, 'u2', {
      type: 'CreateAlert',
      data: { symbol: 'MSFT', kind: 'SMA', alerttype: 'U', threshold: null, period: 20 },
    });
    await engine.waitFor(position);
    await feed(engine, ticks('MSFT', 95));
    engine.onDayClosed({
      date: '2025-01-02',
      bars: [{ symbol: 'MSFT', date: '2025-01-02', open: 100, high: 100, low: 95, close: 95, volume: 100 }],
    });
    // Level now (18 × 100 + 95) / 19 = 99.74: 99.73 stays below, 99.74 is above it.
    await feed(engine, ticks('MSFT', 99.73));
    expect(await triggered(stores.events, 'u2')).to.have.length(0);
    await feed(engine, ticks('MSFT', 99.74));
    expect(await triggered(stores.events, 'u2')).to.have.length(1);
  });

  describe('conditions and frequencies', function () {
    const NEXT_DAY = Date.parse('2025-01-03T15:00:00.000Z');
    const at = (ts: number, symbol: string, ...prices: number[]): Tick[] =>
      prices.map((price, i) => ({ symbol, price, size: 100, ts: ts + i * 1000 }));

    /** Stops the engine and starts a new one on the same files. */
    async function restart(): Promise<void> {
      await engine.stop();
      await stores.close();
      stores = openStores(dir);
      engine = newEngine();
      await engine.start();
    }

    async function create(data: Partial<AlertInput>): Promise<string> {
      const { alertId, position } = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data });
      await engine.waitFor(position);
      return alertId;
    }

    it('fires a channel alert every time the price enters, each firing under its own command id', async function () {
      const alertId = await create({
        condition: { op: 'entering_channel', lower: 190, upper: 191 },
        frequency: 'every_time',
      });
      await feed(engine, ticks('AAPL', 189.5, 190.5, 192, 190.8, 189));
      const events = await triggered(stores.events, 'u1');
      expect(events.map((e) => [e.data.price, e.data.value, e.data.firing])).to.deep.equal([
        [190.5, 190.5, 1],
        [190.8, 190.8, 2],
      ]);
      expect(events.map((e) => e.metadata.commandId)).to.deep.equal([
        triggerCommandId({ id: alertId, arming: 1, firing: 1 }),
        triggerCommandId({ id: alertId, arming: 1, firing: 2 }),
      ]);
      expect(events[0]!.data.message).to.equal(
        'AAPL price enters the channel 190.00 – 191.00: 190.50 (+0.53% on the day)',
      );
      // The same ticks again (a redelivered batch) append nothing.
      await feed(engine, ticks('AAPL', 189.5, 190.5, 192, 190.8, 189));
      expect(await triggered(stores.events, 'u1')).to.have.length(2);
    });

    it('fires a once-per-bar alert once a day, not again after a restart the same day, and again the next day', async function () {
      const alertId = await create({ condition: { op: 'greater_than', value: 190 }, frequency: 'once_per_bar' });
      await feed(engine, ticks('AAPL', 190.5, 189, 191));
      await restart();
      await feed(engine, at(T0 + 60_000, 'AAPL', 192, 193));
      expect(await triggered(stores.events, 'u1')).to.have.length(1);
      await feed(engine, at(NEXT_DAY, 'AAPL', 194));
      const events = await triggered(stores.events, 'u1');
      expect(events.map((e) => e.data.day)).to.deep.equal(['2025-01-02', '2025-01-03']);
      expect(events[1]!.metadata.commandId).to.equal(triggerCommandId({ id: alertId, arming: 1, day: '2025-01-03' }));
    });

    it('fires a repeating level alert that held before a restart only once it stopped holding', async function () {
      const alertId = await create({ condition: { op: 'greater_than', value: 190 }, frequency: 'every_time' });
      await feed(engine, ticks('AAPL', 191));
      await restart();
      await feed(engine, at(T0 + 60_000, 'AAPL', 192, 193));
      expect(await triggered(stores.events, 'u1')).to.have.length(1);
      await feed(engine, at(T0 + 120_000, 'AAPL', 189, 191));
      const events = await triggered(stores.events, 'u1');
      expect(events.map((e) => [e.data.price, e.data.firing])).to.deep.equal([
        [191, 1],
        [191, 2],
      ]);
      expect(events[1]!.metadata.commandId).to.equal(triggerCommandId({ id: alertId, arming: 1, firing: 2 }));
    });

    it('rebuilt from the log, fires a repeating level alert that held only once it stopped holding', async function () {
      const alertId = await create({ condition: { op: 'greater_than', value: 190 }, frequency: 'every_time' });
      await feed(engine, ticks('AAPL', 191, 189, 191));
      await engine.stop();
      // Another engine builds its index from the same log, from the start (a read-model store of its own).
      const rebuilt = openStores(dir, 'rebuilt.db');
      engine = newEngine(rebuilt);
      await engine.start();
      await feed(engine, at(T0 + 60_000, 'AAPL', 192, 189, 191));
      await engine.stop();
      await rebuilt.close();
      engine = newEngine();
      await engine.start();
      const events = await triggered(stores.events, 'u1');
      expect(events.map((e) => [e.data.price, e.data.firing])).to.deep.equal([
        [191, 1],
        [191, 2],
        [191, 3],
      ]);
      expect(events[2]!.metadata.commandId).to.equal(triggerCommandId({ id: alertId, arming: 1, firing: 3 }));
    });

    it('rebuilt from the log, does not fire a once-per-bar alert again the day it fired', async function () {
      await create({ condition: { op: 'greater_than', value: 190 }, frequency: 'once_per_bar' });
      await feed(engine, ticks('AAPL', 191));
      await engine.stop();
      const rebuilt = openStores(dir, 'rebuilt.db');
      engine = newEngine(rebuilt);
      await engine.start();
      await feed(engine, at(T0 + 60_000, 'AAPL', 192));
      expect(engine.stats().triggers.fired).to.equal(0);
      await feed(engine, at(NEXT_DAY, 'AAPL', 193));
      expect(engine.stats().triggers.appended).to.equal(1);
      await engine.stop();
      await rebuilt.close();
      engine = newEngine();
      await engine.start();
      const events = await triggered(stores.events, 'u1');
      expect(events.map((e) => e.data.day)).to.deep.equal(['2025-01-02', '2025-01-03']);
    });

    it('numbers a repeating trigger after a failed append as the trigger it retries', async function () {
      await engine.stop();
      engine = newEngine({ ...stores, events: failingTriggers(stores.events, 1) });
      await engine.start();
      const alertId = await create({
        condition: { op: 'entering_channel', lower: 190, upper: 191 },
        frequency: 'every_time',
      });
      await feed(engine, ticks('AAPL', 189.5, 190.5, 192, 190.8));
      expect(errors.map((e) => e.message)).to.deep.equal(['the disk is full']);
      errors.length = 0;
      const recorded = await triggered(stores.events, 'u1');
      expect(recorded.map((e) => [e.data.price, e.data.firing, e.metadata.commandId])).to.deep.equal([
        [190.8, 1, triggerCommandId({ id: alertId, arming: 1, firing: 1 })],
      ]);
    });

    it('knows from memory the symbols with an armed alert, the closing-bar ones too, and drops a fired one', async function () {
      await create({ symbol: 'AAPL', threshold: 190 });
      await create({ symbol: 'MSFT', condition: { op: 'greater_than', value: 900 }, frequency: 'once_per_bar_close' });
      expect([...engine.armedSymbols()].sort()).to.deep.equal(['AAPL', 'MSFT']);
      await feed(engine, ticks('AAPL', 189, 190.5));
      await engine.flush();
      expect([...engine.armedSymbols()]).to.deep.equal(['MSFT']);
    });

    it('evaluates a once-per-bar-close alert on the closing bar only', async function () {
      await create({ condition: { op: 'greater_than', value: 190 }, frequency: 'once_per_bar_close' });
      await feed(engine, ticks('AAPL', 195));
      expect(await triggered(stores.events, 'u1')).to.have.length(0);
      engine.onDayClosed({
        date: '2025-01-02',
        bars: [{ symbol: 'AAPL', date: '2025-01-02', open: 189, high: 195, low: 189, close: 191, volume: 100 }],
      });
      await engine.flush();
      const [event, ...more] = await triggered(stores.events, 'u1');
      expect(more).to.deep.equal([]);
      expect(event!.data).to.deep.include({ price: 191, day: '2025-01-02', at: '2025-01-02T21:00:00.000Z' });
    });

    it('evaluates and rolls a close delivered twice once, and a close of a day the quotes were seeded with not at all', async function () {
      await engine.stop();
      const quotes = new LiveQuotes(seeds());
      engine = newEngine(stores, { quotes });
      await engine.start();
      await create({ condition: { op: 'greater_than', value: 190 }, frequency: 'once_per_bar_close' });
      const seededDate = seeds()[0]!.bars.at(-1)!.date;
      const bar = { symbol: 'AAPL', open: 189, high: 195, low: 189, close: 191, volume: 100 };
      // The stored day the quotes start from, published again: nothing evaluated, nothing rolled.
      const before = quotes.quote('AAPL');
      engine.onDayClosed({ date: seededDate, bars: [{ ...bar, date: seededDate }] });
      expect(quotes.quote('AAPL')).to.deep.equal(before);
      const close = { date: '2025-01-02', bars: [{ ...bar, date: '2025-01-02' }] };
      expect(seededDate < close.date).to.equal(true);
      engine.onDayClosed(close);
      const once = { quote: quotes.quote('AAPL'), indicators: quotes.indicators('AAPL') };
      engine.onDayClosed(close);
      await engine.flush();
      expect({ quote: quotes.quote('AAPL'), indicators: quotes.indicators('AAPL') }).to.deep.equal(once);
      expect(await triggered(stores.events, 'u1')).to.have.length(1);
      expect(engine.stats().triggers).to.deep.include({ fired: 1, appended: 1, replayed: 0 });
    });

    it("fires each closing-bar alert once, on its own symbol's bar, when several bars of one close meet theirs", async function () {
      await create({ condition: { op: 'greater_than', value: 190 }, frequency: 'once_per_bar_close' });
      await create({ symbol: 'MSFT', condition: { op: 'less_than', value: 900 }, frequency: 'once_per_bar_close' });
      engine.onDayClosed({
        date: '2025-01-02',
        bars: [
          { symbol: 'AAPL', date: '2025-01-02', open: 189, high: 195, low: 189, close: 191, volume: 100 },
          { symbol: 'MSFT', date: '2025-01-02', open: 410, high: 415, low: 405, close: 412.5, volume: 100 },
        ],
      });
      await engine.flush();
      const prices = (await triggered(stores.events, 'u1')).map((e) => [e.data.message.split(' ')[0], e.data.price]);
      expect(prices).to.deep.equal([
        ['AAPL', 191],
        ['MSFT', 412.5],
      ]);
      expect(engine.stats().triggers).to.deep.include({ fired: 2, appended: 2, replayed: 0 });
    });

    it('says in the message what a level on another series and a moving level were when it fired', async function () {
      // AAPL's last 19 closes sum to 3,591.50: its 20-day SMA at a price p is (3,591.50 + p) / 20.
      await create({
        condition: { op: 'entering_channel', lower: { ref: 'sma:20' }, upper: 191 },
        frequency: 'every_time',
      });
      await create({ condition: { op: 'moving_up', value: 1, bars: 1 } });
      await create({ condition: { op: 'greater_than', value: { ref: 'sma:20' } }, frequency: 'once_per_bar_close' });
      await feed(engine, ticks('AAPL', 188, 190.5));
      // The closing bar's alert: its price and change are the bar's (191.50, +1.06%), not the last tick's.
      engine.onDayClosed({
        date: '2025-01-02',
        bars: [{ symbol: 'AAPL', date: '2025-01-02', open: 189, high: 191, low: 188, close: 191.5, volume: 200 }],
      });
      await engine.flush();
      const messages = (await triggered(stores.events, 'u1')).map((e) => e.data.message);
      expect(messages).to.deep.equal([
        'AAPL price moves up by 1.00 in 1 bar (to 190.50): 190.50 (+0.53% on the day)',
        'AAPL price enters the channel the 20-day SMA (189.10) – 191.00: 190.50 (+0.53% on the day)',
        'AAPL price is at or above the 20-day SMA (189.15): 191.50 (+1.06% on the day)',
      ]);
    });

    it('fires an RSI alert with its value, as notification type 4', async function () {
      await create({ condition: { op: 'less_than', source: 'rsi:14', value: 30 } });
      await feed(engine, ticks('AAPL', 189.5, 150));
      const [event] = await triggered(stores.events, 'u1');
      expect(event!.data.notificationtype).to.equal(4);
      expect(event!.data.value).to.be.below(30);
      expect(event!.data.message).to.match(
        /^AAPL RSI\(14\) is at or below 30: \d+\.\d\d at 150\.00 \(-20\.84% on the day\)$/,
      );
    });

    it('expires an alert past its expiry with an event of its own, instead of firing it', async function () {
      const soon = new Date(T0 + 5_000).toISOString();
      const later = new Date(T0 + 3_600_000).toISOString();
      const a = await create({ condition: { op: 'greater_than', value: 190 }, expires: soon });
      const b = await create({ condition: { op: 'less_than', value: 100 }, expires: later });
      await feed(engine, at(T0 + 10_000, 'AAPL', 191));
      await engine.expire(T0 + 3_600_000);
      const recorded = await stores.events.readStream('alerts-u1');
      expect(recorded.map((e) => [e.type, (e.data as { alertId: string }).alertId])).to.deep.equal([
        ['AlertCreated', a],
        ['AlertCreated', b],
        ['AlertExpired', a],
        ['AlertExpired', b],
      ]);
      expect(await triggered(stores.events, 'u1')).to.have.length(0);
      expect(engine.armedOf('AAPL')).to.deep.equal([]);
      expect(engine.stats().expired).to.equal(2);
    });

    it('keeps the expiry list to the alerts that can still expire, however often they are paused and resumed', async function () {
      const expires = new Date(T0 + 3_600_000).toISOString();
      const alertId = await create({ condition: { op: 'crossing_up', value: 190 }, expires });
      const gone = await create({ condition: { op: 'less_than', value: 100 }, expires });
      const act = async (type: 'PauseAlert' | 'ResumeAlert' | 'DeleteAlert', id = alertId) => {
        const outcome = await handleCommand(
          stores.events,
          alertsDecider,
          'alerts-u1',
          type === 'DeleteAlert' ? { type, data: { alertId: id } } : { type, data: { alertId: id, at: AT } },
          { commandId: randomUUID(), userId: 'u1', at: AT, actor: 'user:u1' },
        );
        await engine.waitFor(outcome.position!);
      };
      await act('DeleteAlert', gone);
      for (let i = 0; i < 150; i++) {
        await act('PauseAlert');
        await act('ResumeAlert');
      }
      // 301 entries were added for this alert; at most the slack beyond the one it has stays.
      expect(engine.stats().watchedExpiries).to.be.within(1, 65);
      await engine.expire(T0 + 3_600_000);
      const expired = (await stores.events.readStream('alerts-u1')).filter((e) => e.type === 'AlertExpired');
      expect(expired.map((e) => (e.data as { alertId: string }).alertId)).to.deep.equal([alertId]);
      expect(engine.stats().watchedExpiries).to.equal(0);
    });

    it('does not fire a paused alert, and fires it once resumed', async function () {
      const alertId = await create({ condition: { op: 'crossing_up', value: 190 } });
      const pause = async (type: 'PauseAlert' | 'ResumeAlert') => {
        const outcome = await handleCommand(
          stores.events,
          alertsDecider,
          'alerts-u1',
          { type, data: { alertId, at: AT } },
          { commandId: randomUUID(), userId: 'u1', at: AT, actor: 'user:u1' },
        );
        await engine.waitFor(outcome.position!);
      };
      await pause('PauseAlert');
      await feed(engine, ticks('AAPL', 189, 191));
      expect(engine.armedOf('AAPL')).to.deep.equal([]);
      await pause('ResumeAlert');
      // The same prices later (ticks of the same times again would be reports of the past, which move nothing).
      await feed(
        engine,
        ticks('AAPL', 189, 191).map((tick) => ({ ...tick, ts: tick.ts + 10_000 })),
      );
      const events = await triggered(stores.events, 'u1');
      expect(events.map((e) => e.metadata.commandId)).to.deep.equal([triggerCommandId({ id: alertId, arming: 2 })]);
    });
  });

  it("appends every alert one tick fires for one user, one after the other on the user's stream", async function () {
    let last: LogPosition | undefined;
    for (let i = 0; i < 25; i++)
      last = (await alertCommand(stores.events, 'u3', { type: 'CreateAlert', data: { threshold: 190 + i / 100 } }))
        .position;
    await engine.waitFor(last!);
    await feed(engine, ticks('AAPL', 191));
    expect(await triggered(stores.events, 'u3')).to.have.length(25);
    expect(engine.stats().triggers).to.deep.include({ fired: 25, appended: 25, failed: 0 });
  });

  it('appends one trigger when two engines on one log both see the crossing', async function () {
    const { position } = await alertCommand(stores.events, 'u1', { type: 'CreateAlert', data: {} });
    const second = newEngine(stores, { instance: 'b' });
    await second.start();
    await Promise.all([engine.waitFor(position), second.waitFor(position)]);
    void engine.onTicks(ticks('AAPL', 190));
    void second.onTicks(ticks('AAPL', 190));
    await Promise.all([engine.flush(), second.flush()]);
    await second.stop();
    expect(await triggered(stores.events, 'u1')).to.have.length(1);
    const both = [engine.stats().triggers, second.stats().triggers];
    expect(both.map((t) => t.fired)).to.deep.equal([1, 1]);
    // The slower one finds the trigger recorded, or appends the same event ids, which the store takes as a retry.
    expect(both.reduce((n, t) => n + t.appended + t.replayed + t.unchanged, 0)).to.equal(2);
    expect(new Set(fired.map((t) => t.event.data.alertId)).size).to.equal(1);
    expect(await stores.readModels.list(`${ALERT_ENGINE_COLLECTION}-b`)).to.have.length(1);
  });

  it('puts the notification in the notifications read model', async function () {
    const runner = await startConsumer(stores.events, stores.readModels, projectionConsumer(notificationsProjection));
    try {
      const { position } = await alertCommand(stores.events, 'u4', { type: 'CreateAlert', data: {} });
      await engine.waitFor(position);
      await feed(engine, ticks('AAPL', 190.25));
      await runner.waitFor(fired[0]!.position!);
      const docs = await stores.readModels.list<{ value: Notification }>('notifications', {
        prefix: notificationPrefix('u4'),
      });
      expect(docs).to.have.length(1);
      expect(docs[0]!.doc.value).to.deep.include({
        symbol: 'AAPL',
        notificationtype: 1,
        notifcationmessage: 'AAPL rose above 190.00: 190.25 (+0.40% on the day)',
      });
    } finally {
      await runner.stop();
    }
  });

  it('drops ticks that arrive before it has started, and counts them', function () {
    const idle = newEngine(stores, { instance: 'idle' });
    void idle.onTicks(ticks('AAPL', 190, 191));
    expect(idle.stats()).to.deep.include({ ticks: 0, droppedTicks: 2 });
  });

  it('reports ticks per second, evaluation time, armed alerts and symbols', async function () {
    let now = 1_000_000;
    const timed = newEngine(stores, { instance: 'timed', now: () => now });
    await timed.start();
    try {
      await alertCommand(stores.events, 'u5', { type: 'CreateAlert', data: { threshold: 500 } });
      const { position } = await alertCommand(stores.events, 'u5', {
        type: 'CreateAlert',
        data: { symbol: 'MSFT', threshold: 500 },
      });
      await timed.waitFor(position);
      void timed.onTicks(ticks('AAPL', ...Array.from({ length: 300 }, () => 189)));
      now += 500;
      void timed.onTicks(ticks('MSFT', ...Array.from({ length: 200 }, () => 101)));
      now += 500;
      const stats = timed.stats();
      expect(stats).to.deep.include({ ticks: 500, ticksPerSec: 500, armed: 2, symbols: 2, pending: 0 });
      expect(stats.evaluationSeconds).to.be.above(0);
      expect(stats.evaluationMicrosPerTick).to.be.above(0);
    } finally {
      await timed.stop();
    }
  });
});

describe('the trigger decider', function () {
  const alertId = '2f1d8a7e-8a53-5a6b-9a43-0f3f0bd2d0a1';
  const created: AlertsEvent = {
    type: 'AlertCreated',
    data: {
      alertId,
      symbol: 'AAPL',
      kind: 'PRICE',
      alerttype: 'U',
      threshold: 190,
      thresholdCents: 19000,
      period: null,
      createdt: AT,
    },
  };
  const updated: AlertsEvent = {
    type: 'AlertUpdated',
    data: {
      alertId,
      symbol: 'AAPL',
      kind: 'PRICE',
      alerttype: 'U',
      threshold: 200,
      thresholdCents: 20000,
      period: null,
      updatedt: AT,
    },
  };
  const trigger = { type: 'TriggerAlert' as const, data: { alertId, price: 190.5, changepct: 0.5, at: AT } };

  it('fires the arming the engine evaluated', function () {
    given(triggerDecider(1), [created])
      .when(trigger)
      .then([
        {
          type: 'AlertTriggered',
          data: {
            alertId,
            symbol: 'AAPL',
            kind: 'PRICE',
            alerttype: 'U',
            threshold: 190,
            period: null,
            price: 190.5,
            changepct: 0.5,
            sma: null,
            notificationtype: 1,
            message: 'AAPL rose above 190.00: 190.50 (+0.50% on the day)',
            at: AT,
            // Events written before conditions existed are read as the price alert they describe.
            condition: priceCondition('U', 190),
            frequency: 'once',
            value: null,
            day: null,
            firing: 1,
          },
        },
      ]);
  });

  it('fires a re-armed alert under its new arming', function () {
    given(triggerDecider(2), [created, updated])
      .when({ ...trigger, data: { ...trigger.data, price: 200 } })
      .then([
        {
          type: 'AlertTriggered',
          data: {
            alertId,
            symbol: 'AAPL',
            kind: 'PRICE',
            alerttype: 'U',
            threshold: 200,
            period: null,
            price: 200,
            changepct: 0.5,
            sma: null,
            notificationtype: 1,
            message: 'AAPL rose to 200.00: 200.00 (+0.50% on the day)',
            at: AT,
            // Events written before conditions existed are read as the price alert they describe.
            condition: priceCondition('U', 200),
            frequency: 'once',
            value: null,
            day: null,
            firing: 1,
          },
        },
      ]);
  });

  it('decides nothing for an alert changed since the tick (a stale arming)', function () {
    given(triggerDecider(1), [created, updated]).when(trigger).thenNothing();
  });

  it('decides nothing for an alert that no longer exists', function () {
    given(triggerDecider(1), [created, { type: 'AlertDeleted', data: { alertId, symbol: 'AAPL' } }])
      .when(trigger)
      .thenNothing();
  });
});
