import { expect } from 'chai';
import { createInProcessTickBus } from '../../platform/bus/inProcess.ts';
import { ProviderError, type AlpacaDataOptions } from './alpacaBars.ts';
import { FakeAlpaca, alpacaRow as row } from './alpacaTesting.ts';
import { importProviderBars, refreshProviderBars } from './providerImport.ts';
import { refreshBarsAtClose } from './providerRefresh.ts';
import { openMarketStore, type MarketStore } from './store.ts';
import { loadUniverse } from './universe.ts';

const UNIVERSE = loadUniverse();

describe('importing daily bars from Alpaca', function () {
  let alpaca: FakeAlpaca;
  let store: MarketStore;
  let api: AlpacaDataOptions;
  beforeEach(async function () {
    alpaca = new FakeAlpaca();
    await alpaca.start();
    api = { keyId: 'key-id', secretKey: 'secret', baseUrl: alpaca.url };
    store = openMarketStore({ file: ':memory:' });
  });
  afterEach(async function () {
    store.close();
    await alpaca.stop();
  });

  it('reads every page, waits out a 429, and writes each symbol marked imported', async function () {
    alpaca.answer(
      { body: { bars: { AAPL: [row('2025-03-10', 220), row('2025-03-11', 221)] }, next_page_token: 'QUFQTHwy' } },
      { status: 429, headers: { 'retry-after': '0' }, body: { message: 'too many requests' } },
      {
        body: {
          bars: { AAPL: [row('2025-03-12', 222)], ZZZT: [row('2025-03-11', 5.5), row('2025-03-12', 5.75)] },
          next_page_token: null,
        },
      },
    );
    const fetched: [number, number][] = [];
    const written: [number, number][] = [];
    const results = await importProviderBars(store, {
      api,
      symbols: ['AAPL', 'ZZZT'],
      from: '2025-03-10',
      universe: UNIVERSE,
      onFetch: (done, total) => fetched.push([done, total]),
      onWrite: (done, total) => written.push([done, total]),
      now: () => Date.parse('2025-03-13T12:00:00Z'),
    });
    expect(results).to.deep.equal([
      { symbol: 'AAPL', bars: 3, from: '2025-03-10', to: '2025-03-12', listed: false },
      { symbol: 'ZZZT', bars: 2, from: '2025-03-11', to: '2025-03-12', listed: true },
    ]);
    expect(alpaca.requests).to.have.length(3);
    const first = alpaca.requests[0]!.searchParams;
    expect(Object.fromEntries(first)).to.deep.include({
      symbols: 'AAPL,ZZZT',
      timeframe: '1Day',
      start: '2025-03-10',
      feed: 'iex',
    });
    expect(first.has('page_token')).to.equal(false);
    expect(alpaca.requests[2]!.searchParams.get('page_token')).to.equal('QUFQTHwy');
    expect(alpaca.keys.every((k) => k === 'key-id')).to.equal(true);
    expect(store.bars('AAPL')).to.deep.equal([
      { date: '2025-03-10', open: 219, high: 221, low: 218, close: 220, volume: 1_000_000 },
      { date: '2025-03-11', open: 220, high: 222, low: 219, close: 221, volume: 1_000_000 },
      { date: '2025-03-12', open: 221, high: 223, low: 220, close: 222, volume: 1_000_000 },
    ]);
    expect(store.meta().barSources).to.deep.equal({ AAPL: 'imported', ZZZT: 'imported' });
    expect(store.providerSymbols()).to.deep.equal([
      { symbol: 'AAPL', provider: 'alpaca', name: 'Apple Inc.', sector: 'Information Technology' },
      { symbol: 'ZZZT', provider: 'alpaca', name: 'ZZZT', sector: null },
    ]);
    expect(fetched.at(-1)).to.deep.equal([5, 5]);
    expect(written).to.deep.equal([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
  });

  it('takes the name and sector of a symbol outside the universe from the import', async function () {
    alpaca.answer({ body: { bars: { ZZZT: [row('2025-03-11', 5.5)] }, next_page_token: null } });
    await importProviderBars(store, {
      api,
      symbols: ['ZZZT'],
      from: '2025-03-10',
      universe: UNIVERSE,
      company: { name: 'Zed Tools Inc.', sector: 'Industrials' },
    });
    expect(store.providerSymbols()).to.deep.equal([
      { symbol: 'ZZZT', provider: 'alpaca', name: 'Zed Tools Inc.', sector: 'Industrials' },
    ]);
  });

  it('waits until X-RateLimit-Reset when a 429 gives no Retry-After', async function () {
    const reset = Math.floor(Date.now() / 1000);
    alpaca.answer(
      { status: 429, headers: { 'x-ratelimit-reset': String(reset) }, body: { message: 'too many requests' } },
      { body: { bars: { AAPL: [row('2025-03-11', 221)] }, next_page_token: null } },
    );
    const results = await importProviderBars(store, { api, symbols: ['AAPL'], from: '2025-03-11', universe: UNIVERSE });
    expect(results[0]?.bars).to.equal(1);
    expect(alpaca.requests).to.have.length(2);
  });

  /** Imports AAPL and MSFT over two pages whose second is `page2`, expecting a refusal matching `message`. */
  async function refused(page2: unknown, message: RegExp): Promise<void> {
    store.replaceBars('MSFT', [{ date: '2025-01-02', open: 1, high: 2, low: 1, close: 1.5, volume: 10 }], 'generated');
    const before = store.bars('MSFT');
    alpaca.answer({ body: { bars: { AAPL: [row('2025-03-10', 220)] }, next_page_token: 'next' } }, { body: page2 });
    let error: unknown;
    try {
      await importProviderBars(store, { api, symbols: ['AAPL', 'MSFT'], from: '2025-03-10', universe: UNIVERSE });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(ProviderError);
    expect((error as Error).message).to.match(message);
    expect(store.bars('AAPL')).to.deep.equal([]);
    expect(store.bars('MSFT')).to.deep.equal(before);
  }

  it('refuses a bad row naming its page, row and field, and writes nothing', async function () {
    await refused(
      { bars: { MSFT: [row('2025-03-10', 380), row('2025-03-11', 381, { h: -1 })] }, next_page_token: null },
      /^page 2: bars\.MSFT\[1\]\.h: must be a positive number$/,
    );
  });

  it('refuses a row whose high is below its close, naming the row', async function () {
    await refused(
      { bars: { MSFT: [row('2025-03-10', 380, { h: 300 })] }, next_page_token: null },
      /^page 2: bars\.MSFT\[0\] \(2025-03-10\): high is below open or close$/,
    );
  });

  it('refuses a row without a time, and rows out of order', async function () {
    await refused(
      { bars: { MSFT: [{ ...row('2025-03-10', 380), t: 'yesterday' }] }, next_page_token: null },
      /^page 2: bars\.MSFT\[0\]\.t: must be an RFC 3339 time$/,
    );
    alpaca.answer({
      body: { bars: { AAPL: [row('2025-03-11', 220), row('2025-03-10', 219)] }, next_page_token: null },
    });
    const error = await importProviderBars(store, {
      api,
      symbols: ['AAPL'],
      from: '2025-03-10',
      universe: UNIVERSE,
    }).catch((e: unknown) => e);
    expect((error as Error).message).to.match(/^page 1: bars\.AAPL\[1\] \(2025-03-10\): date is not after 2025-03-11$/);
  });

  it('refuses a symbol the provider has no bars of', async function () {
    alpaca.answer({ body: { bars: { AAPL: [row('2025-03-10', 220)] }, next_page_token: null } });
    const error = await importProviderBars(store, {
      api,
      symbols: ['AAPL', 'NOPEX'],
      from: '2025-03-10',
      universe: UNIVERSE,
    }).catch((e: unknown) => e);
    expect((error as Error).message).to.equal('NOPEX: the provider has no daily bars from 2025-03-10');
    expect(store.bars('AAPL')).to.deep.equal([]);
  });

  it('names the refusal of the provider, with a hint on the keys for a 403', async function () {
    alpaca.answer({ status: 403, body: { message: 'forbidden' } });
    const error = await importProviderBars(store, {
      api,
      symbols: ['AAPL'],
      from: '2025-03-10',
      universe: UNIVERSE,
    }).catch((e: unknown) => e);
    expect((error as Error).message).to.equal(
      'page 1: the provider answered 403: forbidden (check ALPACA_KEY_ID and ALPACA_SECRET_KEY)',
    );
  });

  it('refreshes the last day and adds the days after it, for the provider symbols only', async function () {
    alpaca.answer({
      body: { bars: { AAPL: [row('2025-03-10', 220), row('2025-03-11', 221)] }, next_page_token: null },
    });
    await importProviderBars(store, { api, symbols: ['AAPL'], from: '2025-03-10', universe: UNIVERSE });
    store.replaceBars('MSFT', [{ date: '2025-03-11', open: 1, high: 2, low: 1, close: 1.5, volume: 10 }], 'generated');
    // The last day's bar was taken during the session; after the close the provider has its final figures.
    alpaca.answer({
      body: { bars: { AAPL: [row('2025-03-11', 225), row('2025-03-12', 226)] }, next_page_token: null },
    });
    const result = await refreshProviderBars(store, api, '2025-03-12');
    expect(result).to.deep.equal({ symbols: 1, bars: 2 });
    expect(Object.fromEntries(alpaca.requests.at(-1)!.searchParams)).to.deep.include({
      symbols: 'AAPL',
      start: '2025-03-11',
      end: '2025-03-12',
    });
    expect(store.bars('AAPL').map((b) => [b.date, b.close])).to.deep.equal([
      ['2025-03-10', 220],
      ['2025-03-11', 225],
      ['2025-03-12', 226],
    ]);
    expect(store.bars('MSFT')).to.have.length(1);
  });
});

describe('refreshing the provider bars at each session close', function () {
  it('rewrites the closed day from the provider when the day closes on the bus, and reports a failure', async function () {
    const alpaca = new FakeAlpaca();
    await alpaca.start();
    const store = openMarketStore({ file: ':memory:' });
    const bus = createInProcessTickBus();
    const done: string[] = [];
    const failed: string[] = [];
    let settle: () => void = () => undefined;
    const refreshed = (n: number) =>
      new Promise<void>((resolve) => (settle = () => done.length + failed.length >= n && resolve()));
    const api = { keyId: 'key-id', secretKey: 'secret', baseUrl: alpaca.url };
    const refresher = refreshBarsAtClose({
      bus,
      store,
      api,
      onRefreshed: (date, result) => {
        done.push(`${date}: ${result.bars}`);
        settle();
      },
      onError: (date, error) => {
        failed.push(`${date}: ${(error as Error).message}`);
        settle();
      },
    });
    try {
      await refresher.ready;
      alpaca.answer({ body: { bars: { ZZZT: [row('2025-03-10', 10)] }, next_page_token: null } });
      await importProviderBars(store, { api, symbols: ['ZZZT'], from: '2025-03-10', universe: UNIVERSE });

      alpaca.answer({ body: { bars: { ZZZT: [row('2025-03-11', 11)] }, next_page_token: null } });
      const first = refreshed(1);
      await bus.publishDayClosed({ date: '2025-03-11', bars: [] });
      await first;
      expect(done).to.deep.equal(['2025-03-11: 1']);
      expect(store.bars('ZZZT').map((b) => [b.date, b.close])).to.deep.equal([
        ['2025-03-10', 10],
        ['2025-03-11', 11],
      ]);

      alpaca.answer({ status: 500, body: { message: 'internal error' } });
      const second = refreshed(2);
      await bus.publishDayClosed({ date: '2025-03-12', bars: [] });
      await second;
      expect(failed).to.deep.equal(['2025-03-12: page 1: the provider answered 500: internal error']);
      expect(store.bars('ZZZT')).to.have.length(2);
    } finally {
      await refresher.stop();
      await bus.close();
      store.close();
      await alpaca.stop();
    }
  });
});
