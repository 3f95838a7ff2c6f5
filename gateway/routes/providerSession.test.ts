import { expect } from 'chai';
import type { MinuteCandles } from '../../domain/contract/market.ts';
import { FakeAlpaca } from '../../engine/marketdata/alpacaTesting.ts';
import { regularMarketClock } from '../../engine/ticks/marketClock.ts';
import { loopbackAlpaca, type AlpacaServer } from '../../engine/ticks/providerTesting.ts';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';

const KEY = 'PKSESSIONKEY';
const SECRET = 'session-secret';
const MINUTE_MS = 60_000;

interface QuoteBody {
  price: number;
  open: number;
  high: number;
  low: number;
  volume: number;
  source: string;
}

/**
 * A restart while a session is open picks it up from the provider's minute bars. Whether a New York session is
 * open depends on when the test runs (the process reads the wall clock, as in production): the test asks the
 * same calendar and checks what a start must do then, the bars played or nothing asked. Every case of the
 * backfill itself, at fixed times, is in `engine/quotes/sessionBackfill.test.ts`.
 */
describe('a restart on a provider stream (TICK_SOURCE=alpaca)', function () {
  this.timeout(60_000);
  let stream: AlpacaServer;
  let rest: FakeAlpaca;
  let gw: TestGateway | undefined;

  beforeEach(async function () {
    stream = loopbackAlpaca(KEY, SECRET);
    await stream.listening();
    rest = new FakeAlpaca();
    await rest.start();
  });

  afterEach(async function () {
    await gw?.close();
    gw = undefined;
    await stream.close();
    await rest.stop();
  });

  function start(dataDir?: string): Promise<TestGateway> {
    return startTestGateway({
      ...(dataDir ? { dataDir } : {}),
      env: {
        TICK_SOURCE: 'alpaca',
        ALPACA_KEY_ID: KEY,
        ALPACA_SECRET_KEY: SECRET,
        ALPACA_STREAM_URL: stream.url,
        ALPACA_DATA_URL: rest.url,
      },
    });
  }

  it("plays the open session's minute bars of the watched symbols into the quotes and the 1D chart", async function () {
    gw = await start();
    const dataDir = gw.dataDir;
    const user = await gw.user('trader');
    expect((await user.post('/personalize/createwatchlist', ['NVDA'])).status).to.be.below(300);
    const before = await user.getOk<QuoteBody[]>('/api/quotes?symbols=NVDA').then(([q]) => q!);
    await gw.close({ keepData: true });
    gw = undefined;

    const now = Date.now();
    const session = regularMarketClock().sessionAt(now);
    // A few seconds of margin, so the session is still open (or still closed) when the gateway starts.
    const open = now >= session.start + 2_000 && now < session.end - 30_000;
    const closed = now < session.start - 30_000 || now >= session.end;
    if (!open && !closed) this.skip();
    const first = session.start;
    const last = Math.max(first + MINUTE_MS, Math.floor(now / MINUTE_MS) * MINUTE_MS - MINUTE_MS);
    const row = (t: number, o: number, h: number, l: number, c: number, v: number) => ({
      t: new Date(t).toISOString().replace('.000Z', 'Z'),
      o,
      h,
      l,
      c,
      v,
    });
    if (open) {
      rest.answer({
        body: {
          bars: {
            NVDA: [
              row(first, 120, 121.5, 119.75, 121, 40_000),
              ...(last < now ? [row(last, 121, 123, 120.5, 122.25, 2_500)] : []),
            ],
          },
          next_page_token: null,
        },
      });
    }

    gw = await start(dataDir);
    const viewer = await gw.user('viewer');
    const quote = await viewer.getOk<QuoteBody[]>('/api/quotes?symbols=NVDA').then(([q]) => q!);
    const minutes = await viewer.getOk<MinuteCandles>('/api/bars/NVDA/minutes');
    if (closed) {
      expect(rest.requests).to.have.length(0);
      expect(quote).to.deep.include({ price: before.price, source: before.source });
      expect(minutes.candles).to.have.length(0);
      expect(gw.running.system.engine!.sessionBar('NVDA')).to.equal(undefined);
      return;
    }
    expect(rest.requests).to.have.length(1);
    expect(Object.fromEntries(rest.requests[0]!.searchParams)).to.deep.include({
      symbols: 'NVDA',
      timeframe: '1Min',
      start: new Date(first).toISOString(),
      feed: 'iex',
    });
    expect(rest.keys[0]).to.equal(KEY);
    const both = last < now;
    expect(quote).to.deep.include({
      price: both ? 122.25 : 121,
      open: 120,
      high: both ? 123 : 121.5,
      low: 119.75,
      volume: both ? 42_500 : 40_000,
      source: 'alpaca-iex',
    });
    // The day close will publish the whole session's bar, not the one of the ticks since the restart.
    expect(gw.running.system.engine!.sessionBar('NVDA')).to.deep.equal({
      open: 120,
      high: both ? 123 : 121.5,
      low: 119.75,
      close: both ? 122.25 : 121,
      volume: both ? 42_500 : 40_000,
    });
    expect(minutes.candles.map((c) => [c.start, c.open, c.high, c.low, c.close, c.volume])).to.deep.equal([
      [new Date(first).toISOString(), 120, 121.5, 119.75, 121, 40_000],
      ...(both ? [[new Date(last).toISOString(), 121, 123, 120.5, 122.25, 2_500]] : []),
    ]);
  });
});
