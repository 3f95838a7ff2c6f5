import { expect } from 'chai';
import { EMA, MACD } from 'trading-signals';
import {
  EMPTY_INDICATOR_ROW,
  FLAT_RSI,
  LiveIndicators,
  computeIndicators,
  computeIndicatorsOfCloses,
  emaSeries,
  rsiSeries,
  smaSeries,
} from './indicators.ts';

/** A deterministic random walk of closes in cents (a small LCG). */
function walk(count: number, seed: number): number[] {
  let state = seed;
  let close = 100;
  return Array.from({ length: count }, () => {
    state = (state * 48_271) % 2_147_483_647;
    close = Math.max(1, Math.round(close * (1 + (state / 2_147_483_647 - 0.5) * 0.05) * 100) / 100);
    return close;
  });
}

const ramp = (count: number): number[] => Array.from({ length: count }, (_, i) => i + 1);

describe('indicators', () => {
  describe('simple moving averages', () => {
    it('average the last N closes, by hand on 1, 2, 3, …', () => {
      const rows = computeIndicatorsOfCloses(ramp(201));
      expect(rows[18]?.SMA_20).to.equal(null);
      expect(rows[19]?.SMA_20).to.be.closeTo(10.5, 1e-12);
      expect(rows[20]?.SMA_20).to.be.closeTo(11.5, 1e-12);
      expect(rows[48]?.SMA_50).to.equal(null);
      expect(rows[49]?.SMA_50).to.be.closeTo(25.5, 1e-12);
      expect(rows[99]?.SMA_100).to.be.closeTo(50.5, 1e-12);
      expect(rows[198]?.SMA_200).to.equal(null);
      expect(rows[199]?.SMA_200).to.be.closeTo(100.5, 1e-12);
      expect(rows[200]?.SMA_200).to.be.closeTo(101.5, 1e-12);
    });

    it('of period 3 on a short series', () => {
      expect(smaSeries([2, 4, 9, 1], 3)).to.deep.equal([null, null, 5, 14 / 3]);
    });
  });

  describe("Wilder's RSI", () => {
    // Changes: ten gains of +1 and four losses of −1, then a loss of −2.
    const changes = [1, 1, -1, 1, 1, 1, -1, 1, 1, -1, 1, 1, -1, 1, -2];
    const closes = changes.reduce<number[]>((acc, change) => [...acc, (acc.at(-1) ?? 0) + change], [50]);

    it('starts on the 15th close with the simple averages of the first 14 gains and losses', () => {
      const rows = computeIndicatorsOfCloses(closes);
      expect(rows[13]?.rsi_14).to.equal(null);
      // avg gain 10/14, avg loss 4/14: RS 2.5, RSI 100 − 100 / 3.5.
      expect(rows[14]?.rsi_14).to.be.closeTo(100 - 100 / 3.5, 1e-9);
    });

    it('then smooths them as (13 × previous + current) / 14', () => {
      const rows = computeIndicatorsOfCloses(closes);
      // avg gain (13 × 10/14 + 0) / 14 = 130/196, avg loss (13 × 4/14 + 2) / 14 = 80/196: RS 1.625.
      expect(rows[15]?.rsi_14).to.be.closeTo(100 - 100 / 2.625, 1e-9);
    });

    it('of period 3 on a short series', () => {
      // Changes +2, −1, +1 → gain 1, loss 1/3: RS 3, RSI 75; then −3 → gain 2/3, loss 11/9: RSI 100 − 100 / (1 + 6/11).
      const values = rsiSeries([10, 12, 11, 12, 9], 3);
      expect(values.slice(0, 3)).to.deep.equal([null, null, null]);
      expect(values[3]).to.be.closeTo(75, 1e-9);
      expect(values[4]).to.be.closeTo(100 - 100 / (1 + 6 / 11), 1e-9);
    });

    it('is 50 on a flat price, where every gain and loss is zero', () => {
      const rows = computeIndicatorsOfCloses(Array<number>(30).fill(42));
      expect(rows[14]?.rsi_14).to.equal(FLAT_RSI);
      expect(rows[29]?.rsi_14).to.equal(50);
      expect(rsiSeries(Array<number>(20).fill(7))[19]).to.equal(50);
    });

    it('is 100 when there are gains and no losses, and 0 with losses and no gains', () => {
      expect(computeIndicatorsOfCloses(ramp(20))[19]?.rsi_14).to.equal(100);
      expect(computeIndicatorsOfCloses(ramp(20).reverse())[19]?.rsi_14).to.equal(0);
    });

    it('stays 100, not 50, when a rise is followed by a flat stretch', () => {
      const closes = [...ramp(15), ...Array<number>(20).fill(15)];
      expect(computeIndicatorsOfCloses(closes).at(-1)?.rsi_14).to.equal(100);
    });
  });

  describe('EMA, MACD and Bollinger bands', () => {
    it('give the EMA from the N-th close, seeded with the first close', () => {
      const values = emaSeries([10, 20, 30], 3);
      // Weight 2 / (3 + 1) = 0.5: 10, 15, 22.5.
      expect(values).to.deep.equal([null, null, 22.5]);
      const rows = computeIndicatorsOfCloses(ramp(30));
      expect(rows[10]?.EMA_12).to.equal(null);
      expect(rows[11]?.EMA_12).to.be.a('number');
      expect(rows[24]?.EMA_26).to.equal(null);
      expect(rows[25]?.EMA_26).to.be.a('number');
    });

    it('give the MACD line from the 26th close and its signal and histogram from the 34th', () => {
      const rows = computeIndicatorsOfCloses(walk(40, 3));
      expect(rows[24]?.macd).to.equal(null);
      expect(rows[25]?.macd).to.be.closeTo(rows[25]!.EMA_12! - rows[25]!.EMA_26!, 1e-9);
      expect(rows[32]?.macd_signal).to.equal(null);
      expect(rows[33]?.macd_signal).to.be.a('number');
      expect(rows[33]?.macd_hist).to.be.closeTo(rows[33]!.macd! - rows[33]!.macd_signal!, 1e-12);
    });

    it('give bands two population standard deviations around the SMA 20', () => {
      const closes = [...Array<number>(10).fill(1), ...Array<number>(10).fill(3)];
      const row = computeIndicatorsOfCloses(closes)[19]!;
      // Mean 2, population deviation 1.
      expect(row.bb_middle).to.be.closeTo(2, 1e-12);
      expect(row.bb_upper).to.be.closeTo(4, 1e-12);
      expect(row.bb_lower).to.be.closeTo(0, 1e-12);
      expect(computeIndicatorsOfCloses(closes)[18]?.bb_middle).to.equal(null);
    });
  });

  it('gives one row per bar, all null on the first bar', () => {
    const bars = walk(5, 9).map((close, i) => ({
      date: `2024-01-0${i + 1}`,
      open: close,
      high: close,
      low: close,
      close,
      volume: 1,
    }));
    const rows = computeIndicators(bars);
    expect(rows).to.have.length(5);
    expect(rows[0]).to.deep.equal(EMPTY_INDICATOR_ROW);
  });

  describe('live indicators', () => {
    const closes = walk(260, 17);

    it('give with a live price exactly the row of the history with that price as the last close', () => {
      for (const seed of [0, 1, 14, 15, 25, 26, 33, 34, 199, 200, 240]) {
        const live = new LiveIndicators(closes.slice(0, seed));
        const prices = walk(8, seed + 1).map((p) => (p / 100) * closes[seed]!);
        for (const price of prices) {
          expect(live.update(price)).to.deep.equal(computeIndicatorsOfCloses([...closes.slice(0, seed), price]).at(-1));
        }
      }
    });

    it('after a roll, start a new forming day on top of the finished one', () => {
      const live = new LiveIndicators(closes.slice(0, 200));
      for (let day = 200; day < 230; day += 1) {
        live.update(closes[day]! * 1.01);
        live.update(closes[day]! * 0.98);
        const finished = live.roll(closes[day]);
        expect(finished).to.deep.equal(computeIndicatorsOfCloses(closes.slice(0, day + 1)).at(-1));
      }
      expect(live.finishedDays).to.equal(230);
      expect(live.isForming).to.be.false;
      expect(live.update(99)).to.deep.equal(computeIndicatorsOfCloses([...closes.slice(0, 230), 99]).at(-1));
    });

    it('roll a day without any price into nothing', () => {
      const live = new LiveIndicators(closes.slice(0, 50));
      const before = live.current;
      expect(live.roll()).to.equal(null);
      expect(live.finishedDays).to.equal(50);
      expect(live.current).to.deep.equal(before);
      expect(live.current).to.deep.equal(computeIndicatorsOfCloses(closes.slice(0, 50)).at(-1));
    });

    it('keep the flat-price RSI at 50 while a live price equals the flat close, and leave it when it moves', () => {
      const live = new LiveIndicators(Array<number>(20).fill(10));
      expect(live.update(10).rsi_14).to.equal(50);
      expect(live.update(10.5).rsi_14).to.equal(100);
      expect(live.update(10).rsi_14).to.equal(50);
      expect(live.update(9.5).rsi_14).to.equal(0);
    });

    it("report the EMAs and the MACD signal from exactly the close the library's own isStable says", () => {
      // Days of several live prices each, some days without any, fed alike to the library's indicators.
      const ema12 = new EMA(12);
      const ema26 = new EMA(26);
      const macd = new MACD(new EMA(12), new EMA(26), new EMA(9));
      const live = new LiveIndicators();
      let forming = false;
      const prices = walk(400, 29);
      let p = 0;
      const seen = { ema12: 0, ema26: 0, signal: 0 };
      for (let day = 0; day < 60; day++) {
        const ticks = day % 7 === 3 ? 0 : 1 + (day % 4);
        for (let t = 0; t < ticks; t++) {
          const price = prices[p++]!;
          const row = live.update(price);
          for (const indicator of [ema12, ema26, macd]) indicator.update(price, forming);
          forming = true;
          expect(row.EMA_12 !== null, `EMA 12 on day ${day}`).to.equal(ema12.isStable);
          expect(row.EMA_26 !== null, `EMA 26 on day ${day}`).to.equal(ema26.isStable);
          expect(row.macd_signal !== null, `signal on day ${day}`).to.equal(macd.signal.isStable);
          if (row.EMA_12 !== null) seen.ema12 += 1;
          if (row.EMA_26 !== null) seen.ema26 += 1;
          if (row.macd_signal !== null) seen.signal += 1;
        }
        live.roll();
        forming = false;
      }
      // Each became known within the run, and was unknown before.
      expect(seen.ema12).to.be.above(seen.ema26);
      expect(seen.ema26).to.be.above(seen.signal);
      expect(seen.signal).to.be.above(0);
      const closes = walk(40, 31);
      const series = emaSeries(closes, 12);
      const reference = new EMA(12);
      closes.forEach((close, i) => {
        reference.add(close);
        expect(series[i] !== null, `emaSeries at ${i}`).to.equal(reference.isStable);
      });
    });

    it('start empty without seed closes', () => {
      const live = new LiveIndicators();
      expect(live.current).to.deep.equal(EMPTY_INDICATOR_ROW);
      expect(live.update(10)).to.deep.equal(EMPTY_INDICATOR_ROW);
    });
  });
});
