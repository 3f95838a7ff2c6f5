import { expect } from 'chai';
import type { AlertAnswer } from '../../../domain/contract/alerts.ts';
import fc from 'fast-check';
import { EMA } from 'trading-signals';
import { channelPlacement, emaValues, seriesValues, sourcePanel, type ChartView } from './channelBands.ts';
import { bar as plainBar } from './chartFixtures.ts';

/** A bar with its volume and RSI(14) following its close. */
const bar = (date: string, close: number) => plainBar(date, close, { volume: close * 1000, rsi_14: 40 + close / 10 });

type Condition = AlertAnswer['condition'];

function channel(patch: Partial<Condition>): Condition {
  return { op: 'inside_channel', source: 'price', value: null, lower: 100, upper: 110, bars: null, ...patch };
}

const bars = [bar('2026-03-02', 100), bar('2026-03-03', 104), bar('2026-03-04', 102)];
const dates = bars.map((b) => b.date);
const daily: ChartView = { panels: ['price', 'volume'], daily: true };
const intraday: ChartView = { panels: ['price'], daily: false, missing: { volume: 'per minute' } };

describe('channel bands of the price chart', () => {
  it('puts each source on its panel: price and moving averages on the price axis, volume, RSI, none for change %', () => {
    expect(['price', 'sma:50', 'ema:12', 'volume', 'rsi:14', 'changepct'].map(sourcePanel)).to.deep.equal([
      'price',
      'price',
      'price',
      'volume',
      'rsi',
      null,
    ]);
  });

  it('computes the EMA seeded with the first close, from the period-th close on', () => {
    // Weight 2 / (3 + 1) = 0.5: 10, 15, 22.5, 26.25.
    expect(emaValues([10, 20, 30, 30], 3)).to.deep.equal([null, null, 22.5, 26.25]);
    expect(emaValues([10], 1)).to.deep.equal([10]);
  });

  it("computes the EMA as the engine's indicator library does", () => {
    // The engine's EMA (engine/indicators): the library's, reported once stable.
    const emaSeries = (closes: readonly number[], period: number) => {
      const ema = new EMA(period);
      return closes.map((close) => {
        const value = ema.add(close);
        return ema.isStable ? value : null;
      });
    };
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1, max: 1000, noNaN: true }), { maxLength: 60 }),
        fc.integer({ min: 2, max: 30 }),
        (closes, period) => {
          const ours = emaValues(closes, period);
          const engine = emaSeries(closes, period);
          expect(ours.map((v) => v === null)).to.deep.equal(engine.map((v) => v === null));
          ours.forEach((v, i) => {
            if (v !== null) expect(v).to.be.closeTo(engine[i] as number, 1e-9 * Math.max(1, v));
          });
        },
      ),
    );
  });

  it('reads every source over the bars: closes, SMAs, EMAs, RSI, volume and the change in percent', () => {
    expect(seriesValues('price', bars)).to.deep.equal([100, 104, 102]);
    expect(seriesValues('sma:50', bars)).to.deep.equal([98, 102, 100]);
    expect(seriesValues('sma:200', bars)).to.deep.equal([null, null, null]);
    expect(seriesValues('ema:2', bars)).to.deep.equal([
      null,
      100 * (1 / 3) + 104 * (2 / 3),
      emaValues([100, 104, 102], 2)[2],
    ]);
    expect(seriesValues('rsi:14', bars)).to.deep.equal([50, 50.4, 50.2]);
    expect(seriesValues('volume', bars)).to.deep.equal([100_000, 104_000, 102_000]);
    expect(seriesValues('changepct', bars)).to.deep.equal([null, 4, (-2 / 104) * 100]);
  });

  it('places a channel of constant prices on the price axis, and of volume on the volume axis', () => {
    expect(channelPlacement(channel({}), bars, daily)).to.deep.equal({
      drawn: true,
      panel: 'price',
      x: dates,
      lower: 100,
      upper: 110,
    });
    expect(channelPlacement(channel({ source: 'sma:50', op: 'entering_channel' }), bars, daily)).to.include({
      drawn: true,
      panel: 'price',
    });
    expect(
      channelPlacement(channel({ source: 'volume', op: 'outside_channel', lower: 1000, upper: 5000 }), bars, daily),
    ).to.deep.equal({ drawn: true, panel: 'volume', x: dates, lower: 1000, upper: 5000 });
  });

  it('makes a bound that refers to a series follow that series over the bars shown', () => {
    const placed = channelPlacement(channel({ lower: { ref: 'sma:50' }, upper: 120 }), bars, daily);
    expect(placed).to.deep.equal({ drawn: true, panel: 'price', x: dates, lower: [98, 102, 100], upper: 120 });
    const both = channelPlacement(
      channel({ source: 'sma:50', lower: { ref: 'ema:2' }, upper: { ref: 'price' } }),
      bars,
      daily,
    );
    expect(both).to.deep.include({ drawn: true, lower: emaValues([100, 104, 102], 2), upper: [100, 104, 102] });
  });

  it('on the 1D minute candles puts a series bound at its last value', () => {
    expect(channelPlacement(channel({ lower: { ref: 'sma:50' } }), bars, intraday)).to.deep.equal({
      drawn: true,
      panel: 'price',
      x: dates,
      lower: 100,
      upper: 110,
    });
  });

  it('says why a channel is not drawn: no panel for its source, a bound in another unit, a series without values', () => {
    expect(channelPlacement(channel({ source: 'changepct', lower: -2, upper: 2 }), bars, daily)).to.deep.equal({
      drawn: false,
      note: 'Not drawn: the chart has no change % panel',
    });
    expect(channelPlacement(channel({ source: 'rsi:14', lower: 30, upper: 70 }), bars, daily)).to.deep.equal({
      drawn: false,
      note: 'Not drawn: the chart shows no RSI(14) panel',
    });
    expect(channelPlacement(channel({ source: 'volume', lower: 1, upper: 2 }), bars, intraday)).to.deep.equal({
      drawn: false,
      note: 'Not drawn: the chart shows no volume panel (per minute)',
    });
    expect(channelPlacement(channel({ upper: { ref: 'volume' } }), bars, daily)).to.deep.equal({
      drawn: false,
      note: 'Not drawn: the volume is not on the price axis',
    });
    expect(channelPlacement(channel({ lower: { ref: 'sma:200' } }), bars, daily)).to.deep.equal({
      drawn: false,
      note: 'Not drawn: the 200-day SMA has no value over the bars shown',
    });
    expect(
      channelPlacement(channel({ source: 'rsi:14', lower: 30, upper: 70 }), bars, { ...daily, panels: ['rsi'] }),
    ).to.include({ drawn: true, panel: 'rsi' });
  });

  it('answers null for an alert that is no channel', () => {
    expect(channelPlacement(channel({ op: 'crossing', value: 100, lower: null, upper: null }), bars, daily)).to.equal(
      null,
    );
  });
});
