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
