/**
 * Test data of the price chart's suites: a daily bar whose 50-day SMA sits 2 below its close, its other
 * indicators missing unless given.
 */
import type { ChartBar } from '../../../domain/contract/market.ts';
import type { Candle, Duration } from './chartData.ts';
import type { BandData, ChartElement } from './chartElements.ts';

/** A daily bar closing (and opening) at `close`, high and low one away, with the fields of `extra`. */
export function bar(date: string, close: number, extra: Partial<ChartBar> = {}): ChartBar {
  return {
    date,
    open: close,
    high: close + 1,
    low: close - 1,
    close,
    volume: 1000,
    SMA_20: null,
    SMA_50: close - 2,
    SMA_100: null,
    SMA_200: null,
    rsi_14: null,
    ...extra,
  };
}

/**
 * A channel alert of AAPL as the chart draws it (BAND): purple, dashed and deleted by a click on its label unless
 * `chartdata` says otherwise; `chartdata` gives its bounds and label, and may name another axis or dates.
 */
export function channelElement(
  id: string,
  chartdata: Pick<BandData, 'lower' | 'upper' | 'label'> & Partial<BandData>,
): ChartElement {
  return {
    symbol: 'AAPL',
    id,
    type: 'BAND',
    charttype: 'condition',
    chartdata: { dash: 'dash', clickable: true, ...chartdata },
    color: '#7c3aed',
    normalize: false,
  };
}

/** What `buildFigure` draws for AAPL over `duration`: the bars or minute candles and `elements`, no averages. */
export function figureState(
  duration: Duration,
  bars: readonly ChartBar[],
  elements: readonly ChartElement[] = [],
  intraday: readonly Candle[] = [],
) {
  return { symbol: 'AAPL', duration, bars, intraday, elements, removed: [] as string[], smas: [], rsiPanel: false };
}

/** Alerts of AAPL as the server answers them (ChartAlert is the answer): the web app's shared test data. */
export {
  conditionAlertAnswer as conditionAlert,
  priceAlertAnswer as priceAlert,
} from '../../../domain/testing/alertAnswers.ts';
