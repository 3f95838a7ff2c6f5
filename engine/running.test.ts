import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createInProcessTickBus } from '../platform/bus/inProcess.ts';
import type { ClosedDay } from '../platform/bus/port.ts';
import { capturedLogger } from '../platform/testing/capturedLog.ts';
import { openMarketData, type MarketData } from './market/marketData.ts';
import { loadUniverse } from './marketdata/universe.ts';
import { fileDayCloseClaims, memoryDayCloseClaims } from './ticks/dayCloser.ts';
import type { SessionStore } from './ticks/keptSession.ts';
import { regularSession } from './ticks/marketClock.ts';
import { alertsDecider } from '../domain/alerts/alerts.ts';
import { handleCommand } from '../platform/commandHandler.ts';
import type { EventStore } from '../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../platform/eventstore/sqlite.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../platform/readmodels/sqlite.ts';
import { AlertEngine, type EngineTrigger } from './alerts/alertEngine.ts';
import { FakeAlpaca } from './marketdata/alpacaTesting.ts';
import { LiveQuotes } from './quotes/liveQuotes.ts';
import { publishClose, storeMissedSession, takeBackSession } from './running.ts';

const UNIVERSE = loadUniverse().filter((e) => ['AAPL', 'MSFT', 'KO'].includes(e.symbol));
/** The stored history's last day (a Friday); the kept session is the Monday after it. */
const END = '2025-03-14';
const SESSION = regularSession('2025-03-17');
const BAR = { open: 240, high: 245.5, low: 238.25, close: 244, volume: 12_345 };

/** A kept session held in memory, as the feed's would be in `DATA_DIR`. */
function keptStore(): SessionStore {
  const text = JSON.stringify({
    date: SESSION.date,
    bars: { AAPL: { ...BAR, first: SESSION.start + 60_000, last: SESSION.end - 60_000 } },
  });
  return { load: () => Promise.resolve(text), save: () => Promise.resolve() };
}

describe('a close that could not be delivered gives its claim back', function () {
  this.timeout(60_000);
  let dataDir: string;
  let market: MarketData | undefined;

  const open = (): MarketData => openMarketData({ dataDir, seed: 7, universe: UNIVERSE, endDate: END });

  beforeEach(function () {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-missed-'));
  });

  afterEach(function () {
    market?.close();
    market = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('closes a missed session at the next start when storing its kept bars failed', async function () {
    const claims = fileDayCloseClaims(path.join(dataDir, 'day-closes'));
    const after = SESSION.end + 3_600_000;
    // The market store cannot be written (closed under the start): the close is claimed, then fails.
    const failing = open();
    failing.close();
    const first = capturedLogger();
    await storeMissedSession(keptStore(), failing, claims, first.logger, after);
    const refused = first.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(refused).to.have.length(1);
    expect(refused[0]).to.include({ date: SESSION.date, released: true });
    expect(refused[0]!['msg']).to.match(/were not stored: the next start closes it from them$/);

    // The next start wins the claim again and stores the close; the one after finds it claimed.
    market = open();
    expect(market.store.bars('AAPL').at(-1)!.date).to.equal(END);
    const second = capturedLogger();
    await storeMissedSession(keptStore(), market, claims, second.logger, after);
    expect(market.store.bars('AAPL').at(-1)).to.include({ date: SESSION.date, ...BAR });
    expect(market.store.bars('MSFT').at(-1)).to.include({ date: SESSION.date, volume: 0 });
    expect(second.lines.join('\n')).to.contain('its kept bars stored as its close');
    const third = capturedLogger();
    await storeMissedSession(keptStore(), market, claims, third.logger, after);
    expect(third.lines).to.deep.equal([]);
  });

  it('gives back the claim of a close the bus refused, and keeps the claim of one it took', async function () {
    const claims = memoryDayCloseClaims();
    const { logger, lines } = capturedLogger();
    const day = (date: string): ClosedDay => ({
      date,
      bars: [{ symbol: 'AAPL', date, ...BAR }],
    });
    const delivered: string[] = [];
    const bus = createInProcessTickBus();
    bus.subscribe({ onTicks: () => undefined, onDayClosed: (d) => void delivered.push(d.date) });

    expect(await claims.claim('2025-03-17')).to.equal(true);
    expect(await publishClose(bus, claims, logger, day('2025-03-17'))).to.equal(true);
    expect(delivered).to.deep.equal(['2025-03-17']);
    expect(await claims.claim('2025-03-17'), 'a published close keeps its claim').to.equal(false);

    // A stop under way at the close: the bus is closed, the close is not published.
    await bus.close();
    expect(await claims.claim('2025-03-18')).to.equal(true);
    expect(await publishClose(bus, claims, logger, day('2025-03-18'))).to.equal(false);
    const logged = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(logged).to.include({
      date: '2025-03-18',
      released: true,
      msg: 'the close of 2025-03-18 was not published: its claim given back',
    });
    expect(await claims.claim('2025-03-18'), 'the next start claims it again').to.equal(true);
  });
});

describe('the session taken back at start', function () {
  this.timeout(30_000);
  let dir: string;
  let events: EventStore;
  let readModels: ReadModelStore;
  let alpaca: FakeAlpaca;
  let quotes: LiveQuotes;
  let engine: AlertEngine;
  const fired: EngineTrigger[] = [];

  /** Monday's session two hours in (a restart then); Friday 2025-03-14 is the last day stored, AAPL at 230. */
  const NOW = SESSION.start + 2 * 3_600_000;
  const ARMED_AT = new Date(SESSION.start - 86_400_000).toISOString();
  const config = {
    alpaca: { keyId: 'key-id', secretKey: 'secret', feed: 'iex' as const, streamUrl: 'ws://127.0.0.1:1' },
    alpacaDataUrl: '',
  };
  const minute = (t: number, o: number, h: number, l: number, c: number, v: number) => ({
    t: new Date(t).toISOString().replace('.000Z', 'Z'),
    ...{ o, h, l, c, v, n: 10, vw: (h + l) / 2 },
  });

  /** Arms an alert on AAPL before the restart; answers its id. */
  async function arm(condition: object, frequency = 'once'): Promise<string> {
    const alertId = randomUUID();
    const data = { alertId, symbol: 'AAPL', condition, frequency, at: ARMED_AT };
    const meta = { commandId: randomUUID(), userId: 'u1', at: ARMED_AT, actor: 'user:u1' as const };
    await handleCommand(events, alertsDecider, 'alerts-u1', { type: 'CreateAlert', data }, meta);
    return alertId;
  }

  /** The alert engine of the restart, started on the log (its index built from it). */
  async function restart(): Promise<void> {
    const close = (date: string) => ({ date, open: 230, high: 230, low: 230, close: 230, volume: 1_000 });
    quotes = new LiveQuotes([{ symbol: 'AAPL', bars: [close('2025-03-13'), close(END)] }], 'alpaca-iex');
    engine = new AlertEngine({
      events,
      readModels,
      quotes,
      onTriggered: (trigger) => fired.push(trigger),
      onError: (error) => {
        throw error;
      },
    });
    await engine.start();
  }

  /** The first trade after the restart; answers the alerts it fired, with their prices. */
  async function firstTrade(price: number): Promise<[string, number][]> {
    fired.length = 0;
    void engine.onTicks([{ symbol: 'AAPL', price, size: 100, ts: NOW + 1_000 }]);
    await engine.flush();
    return fired.map(({ event }) => [event.data.alertId, event.data.price]);
  }

  beforeEach(async function () {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sp-takeback-'));
    events = openSqliteEventStore({ file: path.join(dir, 'events.db') });
    readModels = openSqliteReadModelStore({ file: path.join(dir, 'readmodels.db') });
    alpaca = new FakeAlpaca();
    await alpaca.start();
    fired.length = 0;
  });

  afterEach(async function () {
    await engine.stop();
    await alpaca.stop();
    await readModels.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("measures the alerts from the provider's session picked up, so the first trade's crossing fires", async function () {
    const crossing = await arm({ op: 'crossing_up', value: 233.5 });
    await restart();
    // While the process was down the price went to 233.25, under the level.
    alpaca.answer({
      body: {
        bars: {
          AAPL: [
            minute(SESSION.start, 230, 231.5, 229.75, 231, 40_000),
            minute(SESSION.start + 3_600_000, 231, 233.4, 230.5, 233.25, 2_500),
          ],
        },
        next_page_token: null,
      },
    });
    const { logger } = capturedLogger();
    const taken = await takeBackSession({ ...config, alpacaDataUrl: alpaca.url }, quotes, engine, logger, {
      after: END,
      demand: { symbols: () => ['AAPL'] },
      kept: null,
      now: () => NOW,
    });
    expect(taken.played.map((tick) => tick.price)).to.deep.equal([230, 231.5, 229.75, 231, 231, 233.4, 230.5, 233.25]);
    expect(taken.resumed).to.deep.equal([]);
    await engine.flush();
    expect(fired, 'nothing holds at 233.25').to.deep.equal([]);
    expect(await firstTrade(233.6)).to.deep.equal([[crossing, 233.6]]);
  });

  it('measures the alerts from the kept session taken back: a crossing fires, a level that holds fires at once', async function () {
    const crossing = await arm({ op: 'crossing_up', value: 233.5 });
    const holding = await arm({ op: 'greater_than', value: 233 }, 'every_time');
    await restart();
    const kept: SessionStore = {
      load: () =>
        Promise.resolve(
          JSON.stringify({
            date: SESSION.date,
            bars: {
              AAPL: {
                open: 230,
                high: 233.4,
                low: 229.75,
                close: 233.25,
                volume: 42_500,
                first: SESSION.start,
                last: NOW - 1_000,
              },
            },
          }),
        ),
      save: () => Promise.resolve(),
    };
    const { logger } = capturedLogger();
    const taken = await takeBackSession(config, quotes, engine, logger, { after: END, kept, now: () => NOW });
    expect(taken.played).to.deep.equal([]);
    expect(taken.resumed.at(-1)).to.include({ symbol: 'AAPL', price: 233.25 });
    await engine.flush();
    expect(fired.map(({ event }) => [event.data.alertId, event.data.price])).to.deep.equal([[holding, 233.25]]);
    expect(await firstTrade(233.6)).to.deep.equal([[crossing, 233.6]]);
  });
});
