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
import { publishClose, storeMissedSession } from './running.ts';

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
