import { expect } from 'chai';
import { equalWeightLevels, performanceSeries, type PerformanceInput } from './performance.ts';
import type { Transaction } from './transactions.ts';

const calendar = ['2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05'];
const closes: Record<string, (number | null)[]> = { AAPL: [100, 110, 121, 130], MSFT: [100, 90, null, 80] };
const input = (transactions: Transaction[], benchmark: (number | null)[] = [50, 55, 44, 66]): PerformanceInput => ({
  transactions,
  calendar,
  closes: (symbol, dates) => (closes[symbol] ?? []).slice(calendar.length - dates.length),
  benchmark: (dates) => benchmark.slice(calendar.length - dates.length),
});
const trade = (kind: 'buy' | 'sell', symbol: string, date: string, quantity: number, price: number): Transaction => ({
  kind,
  id: `${kind}-${date}`,
  symbol,
  date,
  quantity,
  price,
  fee: 0,
});

describe('portfolio performance', () => {
  it('compounds daily returns so that money put in or taken out does not move the return', () => {
    const series = performanceSeries(
      input([
        trade('buy', 'AAPL', '2024-01-02', 10, 100),
        trade('buy', 'AAPL', '2024-01-04', 10, 110),
        trade('sell', 'AAPL', '2024-01-05', 20, 121),
      ]),
    );
    // Day 2: 1000 → 1100 is +10%; day 3: 1100 + 1100 put in → 2420 is +10% (21% in all); day 4: all sold at 121.
    expect(series).to.deep.equal({
      dates: calendar,
      value: [1000, 1100, 2420, 0],
      twr: [0, 10, 21, 21],
      benchmark: [0, 10, -12, 32],
    });
  });

  it('counts dividends as gains and fees as losses of their day', () => {
    const series = performanceSeries(
      input([
        trade('buy', 'AAPL', '2024-01-02', 10, 100),
        { kind: 'dividend', id: 'd', symbol: 'AAPL', date: '2024-01-03', amount: 5 },
        { kind: 'fee', id: 'f', symbol: 'AAPL', date: '2024-01-04', amount: 11 },
      ]),
    );
    // Day 2: (1100 − 1000 + 5) / 1000 = 10.5%; day 3: (1210 − 1100 − 11) / 1100 = 9%; 1.105 × 1.09 = 1.20445.
    expect(series.twr.slice(0, 3)).to.deep.equal([0, 10.5, 20.445]);
  });

  it('gains on a short position when the price falls, and keeps the last close on a day without one', () => {
    const series = performanceSeries(input([trade('sell', 'MSFT', '2024-01-02', 10, 100)]));
    expect(series.value).to.deep.equal([-1000, -900, -900, -800]);
    // Day 4: (−800 + 900) / 900 = 11.11%; 1.1 × 1.1111 = 1.2222.
    expect(series.twr).to.deep.equal([0, 10, 10, 22.2222]);
  });

  it('starts on the first trading day on or after the first transaction', () => {
    const series = performanceSeries(input([trade('buy', 'AAPL', '2024-01-03', 1, 110)], [null, null, 10, 20]));
    expect(series.dates).to.deep.equal(['2024-01-03', '2024-01-04', '2024-01-05']);
    expect(series.benchmark).to.deep.equal([null, 0, 100]);
    expect(performanceSeries(input([])).dates).to.deep.equal([]);
    expect(performanceSeries(input([trade('buy', 'AAPL', '2024-02-01', 1, 1)])).dates).to.deep.equal([]);
  });

  describe('trades at a price other than the previous close', () => {
    const june = ['2025-06-10', '2025-06-11', '2025-06-12', '2025-06-13'];
    const aapl = [237, 239.28, 240, 241.2];
    const series = (transactions: Transaction[]) =>
      performanceSeries({
        transactions,
        calendar: june,
        closes: (symbol, dates) => (symbol === 'AAPL' ? aapl : []).slice(june.length - dates.length),
        benchmark: (dates) => dates.map(() => null),
      });

    it('earns the previous close to the sale price on a full exit, then nothing', () => {
      const twr = series([
        trade('buy', 'AAPL', '2025-06-10', 10, 237),
        trade('sell', 'AAPL', '2025-06-11', 10, 239.28),
      ]).twr;
      // 239.28 / 237 − 1 = 0.962% on 06-11; nothing is held afterwards.
      expect(twr).to.deep.equal([0, 0.962, 0.962, 0.962]);
    });

    it('loses on a losing exit and earns the buy price to the close on the buy back', () => {
      const twr = series([
        trade('buy', 'AAPL', '2025-06-10', 10, 237),
        trade('sell', 'AAPL', '2025-06-11', 10, 236),
        trade('buy', 'AAPL', '2025-06-12', 10, 238),
      ]).twr;
      // 06-11: 2360 / 2370 − 1 = −0.4219%; 06-12: 2400 / 2380 = +0.8403% (0.4148% in all); 06-13: 2412 / 2400.
      expect(twr).to.deep.equal([0, -0.4219, 0.4148, 0.9169]);
    });

    it('splits a day at a sale and a buy back on that day', () => {
      const twr = series([
        trade('buy', 'AAPL', '2025-06-10', 10, 237),
        trade('sell', 'AAPL', '2025-06-11', 10, 236),
        trade('buy', 'AAPL', '2025-06-11', 10, 236),
      ]).twr;
      // 06-11: 2360 / 2370 before the trades, 2392.8 / 2360 after them: 2392.8 / 2370 − 1 = 0.962%.
      expect(twr.slice(0, 2)).to.deep.equal([0, 0.962]);
    });

    it('earns the day on the whole holding when part of it is sold', () => {
      const twr = series([
        trade('buy', 'AAPL', '2025-06-10', 10, 237),
        trade('sell', 'AAPL', '2025-06-11', 5, 239.28),
      ]).twr;
      // 06-11: (5 × 239.28 sold + 5 × 239.28 held) / 2370 − 1 = 0.962%; then the 5 left: 240 / 239.28, 241.2 / 237.
      expect(twr).to.deep.equal([0, 0.962, 1.2658, 1.7722]);
    });

    it('measures a first buy from its price to the close', () => {
      const twr = series([trade('buy', 'AAPL', '2025-06-10', 10, 236)]).twr;
      // 06-10: 2370 / 2360 − 1 = 0.4237%; 06-11: 2392.8 / 2360 − 1 = 1.3898%.
      expect(twr.slice(0, 2)).to.deep.equal([0.4237, 1.3898]);
    });

    it('charges the commission of a first buy against the money put in', () => {
      const buy: Transaction = {
        kind: 'buy',
        id: 'b',
        symbol: 'AAPL',
        date: '2025-06-10',
        quantity: 10,
        price: 237,
        fee: 2.37,
      };
      const twr = series([buy]).twr;
      // (2370 − 2.37) / 2370 − 1 = −0.1%.
      expect(twr[0]).to.equal(-0.1);
    });
  });

  it('builds an equal-weight index from the daily returns of its members', () => {
    expect(equalWeightLevels([[0, 10, 21]], 3).map((v) => Number(v.toFixed(6)))).to.deep.equal([100, 110, 121]);
    expect(
      equalWeightLevels(
        [
          [0, 10],
          [0, -10],
        ],
        2,
      ),
    ).to.deep.equal([100, 100]);
    expect(equalWeightLevels([[0, null, 10]], 3)).to.deep.equal([100, 100, 100]);
  });
});
