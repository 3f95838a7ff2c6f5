import { expect } from 'chai';
import {
  COMPARE_COLORS,
  addedIds,
  compareColor,
  coversLabel,
  hideElements,
  labelWidth,
  normalizeSeries,
  renderElements,
  replaceElements,
  tracedPrices,
  shapeMoves,
  trimToLength,
  visibleElements,
  type ChartElement,
  type MarkerPoint,
} from './chartElements.ts';
import { channelElement } from './chartFixtures.ts';

function level(id: string, type: 'ALERT' | 'SAR', y: number | null, charttype = 'price'): ChartElement {
  return {
    symbol: 'AAPL',
    id,
    type,
    charttype,
    chartdata: { y, label: `${id} label`, dash: 'dash', clickable: type === 'ALERT' },
    color: 'green',
    normalize: false,
  };
}

function series(id: string, type: 'LINE' | 'AXIS', symbol = 'MSFT'): ChartElement {
  return {
    symbol,
    id,
    type,
    charttype: 'compare',
    chartdata: { x: ['2026-01-02', '2026-01-05'], y: [10, 11] },
    color: 'red',
    normalize: type === 'LINE',
  };
}

const markers: ChartElement = {
  symbol: 'AAPL',
  id: 'image-patterns',
  type: 'IMAGE',
  charttype: 'pattern',
  chartdata: {
    points: [
      { x: '2026-01-02', y: 12, text: 'Hammer', symbol: 'triangle-up', color: 'green', label: true },
      { x: '2026-01-03', y: 13, text: 'Doji', symbol: 'circle', color: 'grey', label: false },
    ],
  },
  color: 'grey',
  normalize: false,
};

describe('chart elements', () => {
  it('colours added elements red, black, #a7d129, brown, orange, purple, green, then at random', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => compareColor(i))).to.deep.equal([
      'red',
      'black',
      '#a7d129',
      'brown',
      'orange',
      'purple',
      'green',
    ]);
    expect(COMPARE_COLORS).to.have.length(7);
    expect(compareColor(7, () => 0.5)).to.equal('#800000');
    expect(compareColor(8, () => 0)).to.equal('#000000');
    expect(compareColor(9)).to.match(/^#[0-9a-f]{6}$/);
  });

  it('rebases a series onto the main series first value', () => {
    expect(normalizeSeries([50, 55, 45], 200)).to.deep.equal([200, 220, 180]);
    expect(normalizeSeries([0, 10, 20], 5), 'skips a leading zero').to.deep.equal([0, 5, 10]);
    expect(normalizeSeries([], 5)).to.deep.equal([]);
  });

  it("trims data to the main series' length from the end", () => {
    expect(trimToLength([1, 2, 3, 4, 5], 3)).to.deep.equal([3, 4, 5]);
    expect(trimToLength([1, 2], 3)).to.deep.equal([1, 2]);
    expect(trimToLength([1, 2], 0)).to.deep.equal([]);
  });

  it('hides added elements by recording their ids, and reset (no ids) brings them back', () => {
    const elements = [level('a1', 'ALERT', 10), series('compare-MSFT', 'LINE'), series('compare-IBM', 'AXIS', 'IBM')];
    const removed = hideElements([], addedIds(elements));
    expect(removed).to.deep.equal(['compare-MSFT', 'compare-IBM']);
    expect(hideElements(removed, ['compare-MSFT'])).to.deep.equal(removed);
    expect(visibleElements(elements, removed).map((e) => e.id)).to.deep.equal(['a1']);
    expect(renderElements(elements, removed).traces).to.have.length(0);
    expect(visibleElements(elements, []).map((e) => e.id)).to.have.length(3);
  });

  it('replaces the elements of some types only', () => {
    const elements = [level('a1', 'ALERT', 10), level('s1', 'SAR', 9)];
    const next = replaceElements(elements, ['SAR'], [level('s2', 'SAR', 8)]);
    expect(next.map((e) => e.id)).to.deep.equal(['a1', 's2']);
  });

  it('renders ALERT and SAR as straight lines with labels, LINE and AXIS as series, IMAGE as markers', () => {
    const out = renderElements([
      level('a1', 'ALERT', 190.5),
      level('s1', 'SAR', 180, 'support'),
      level('a2', 'ALERT', null),
      level('a3', 'ALERT', 170, 'sma'),
      series('compare-MSFT', 'LINE'),
      series('compare-IBM', 'AXIS', 'IBM'),
      markers,
    ]);
    expect(out.shapeIds, 'alert lines last, on top of the others for a drag').to.deep.equal(['s1', 'a1']);
    expect(out.shapes[1]).to.include({ type: 'line', xref: 'paper', x0: 0, x1: 1, y0: 190.5, y1: 190.5 });
    expect(out.annotationIds, 'an SMA alert is a label only, an alert without a price is not drawn').to.deep.equal([
      'a1',
      's1',
      'a3',
    ]);
    expect(out.annotations[0]).to.include({ text: 'a1 label', captureevents: true, y: 190.5 });
    expect(out.annotations[1]).to.include({ captureevents: false });
    expect(out.traces.map((t) => ('name' in t ? t.name : ''))).to.deep.equal(['MSFT', 'IBM (right axis)', 'Patterns']);
    expect(out.traces[1]).to.include({ yaxis: 'y3' });
    expect(out.secondAxis).to.equal(true);
    // A marker's name is written when it has room, and every name shows on hover.
    expect(out.traces[2]).to.deep.include({
      mode: 'text+markers',
      text: ['Hammer', ''],
      hovertext: ['Hammer', 'Doji'],
      hovertemplate: '%{x}: %{hovertext}<extra></extra>',
    });
  });

  it("tells the prices its traces draw on the price axis without rendering: a normalised line's and the markers'", () => {
    const followed = channelElement('c9', {
      lower: [null, 98],
      upper: 120,
      x: ['2026-03-02', '2026-03-03'],
      axis: 'y',
      label: 'Price is inside the channel ✕',
    });
    const levels = [level('a1', 'ALERT', 190.5), followed];
    const traced = [series('compare-MSFT', 'LINE'), series('compare-IBM', 'AXIS', 'IBM'), markers];
    // A band's edges are levels, not prices; an alert is a level; a series on its own axis is not on this one.
    expect(tracedPrices([...levels, ...traced])).to.deep.equal([10, 11, 12, 13]);
    const rendered = renderElements(traced).traces.filter((t) => (t as { yaxis?: string }).yaxis !== 'y3');
    expect(rendered.flatMap((t) => (t as { y: number[] }).y)).to.deep.equal([10, 11, 12, 13]);
  });

  it("leaves to the hover a pattern's name that would cover a level's label, and writes the others", () => {
    // Resistance 200 labelled at the left edge; a price near spans 2 (one label's height, 17 px).
    const sar = level('r1', 'SAR', 200, 'resistance');
    const point = (at: number, y: number, text: string): MarkerPoint => ({
      x: '2026-01-02',
      y,
      text,
      symbol: 'circle',
      color: 'grey',
      label: true,
      at,
    });
    const patterns: ChartElement = {
      ...markers,
      chartdata: {
        points: [
          point(0.02, 199.5, 'Shooting star'), // its name, just above the marker, on the label's row
          point(0.6, 199.5, 'Doji'), // far to the right of the label
          point(0.02, 195, 'Hammer'), // its name ends below the label's row
          { ...point(0.03, 199.8, 'Harami'), at: undefined }, // where it is across the plot is not known
        ],
      },
    };
    const out = renderElements([patterns, sar], [], { plotWidth: 760, priceNear: 2 });
    expect((out.traces[0] as { text: string[] }).text).to.deep.equal(['', 'Doji', 'Hammer', 'Harami']);
    expect((out.traces[0] as { hovertext: string[] }).hovertext[0]).to.equal('Shooting star');
    // Without the level, every name is written.
    const alone = renderElements([patterns], [], { plotWidth: 760, priceNear: 2 });
    expect((alone.traces[0] as { text: string[] }).text).to.deep.equal(['Shooting star', 'Doji', 'Hammer', 'Harami']);
    const placed = [{ left: 0, right: 0.2, y: 200, below: true }];
    expect(coversLabel({ y: 199.5, text: 'Doji' }, 0.05, placed, 760, 2), 'a label written under its level').to.equal(
      false,
    );
    expect(coversLabel({ y: 197.5, text: 'Doji' }, 0.05, placed, 760, 2)).to.equal(true);
  });

  /** A channel on the price, 180 to 190. */
  const band = channelElement('c1', { lower: 180, upper: 190, label: 'Price enters the channel ✕' });

  it('renders a BAND as a shaded rectangle between its bounds with a clickable label at the top', () => {
    const out = renderElements([band, level('a1', 'ALERT', 150)]);
    expect(out.shapeIds).to.deep.equal(['c1', 'a1']);
    expect(out.shapes[0]).to.include({ type: 'rect', y0: 180, y1: 190, fillcolor: 'rgba(124,58,237,0.14)' });
    expect(out.annotationIds).to.deep.equal(['c1', 'a1']);
    expect(out.annotations[0]).to.include({ text: 'Price enters the channel ✕', y: 190, captureevents: true });
    expect(renderElements([band], ['c1']).shapes).to.deep.equal([]);
  });

  it('renders a BAND whose bounds follow series as two lines over the dates, the upper filled down to the lower', () => {
    const band = channelElement('c2', {
      lower: [null, 98, 99],
      upper: 120,
      x: ['2026-03-02', '2026-03-03', '2026-03-04'],
      axis: 'y',
      label: 'Price is inside the channel ✕',
    });
    const out = renderElements([band]);
    expect(out.shapes, 'no rectangle').to.deep.equal([]);
    expect(out.traces).to.have.length(2);
    const [lower, upper] = out.traces as { x: string[]; y: (number | null)[]; fill?: string; yaxis?: string }[];
    expect(lower).to.deep.include({ x: ['2026-03-02', '2026-03-03', '2026-03-04'], y: [null, 98, 99], yaxis: 'y' });
    expect(lower?.fill).to.equal(undefined);
    expect(upper).to.deep.include({ y: [120, 120, 120], fill: 'tonexty', fillcolor: 'rgba(124,58,237,0.14)' });
    expect(out.annotationIds).to.deep.equal(['c2']);
    expect(out.annotations[0]).to.include({ text: 'Price is inside the channel ✕', y: 120, yref: 'y' });
    expect(renderElements([band], ['c2']).traces).to.deep.equal([]);
  });

  it('renders a BAND on the axis it names, and nothing for a bound without any value', () => {
    const data = { lower: 1e6, upper: 2e6, axis: 'y2', label: 'Volume ✕' } as const;
    const volume = channelElement('v1', data);
    const out = renderElements([volume]);
    expect(out.shapes[0]).to.include({ type: 'rect', yref: 'y2', y0: 1e6, y1: 2e6 });
    expect(out.annotations[0]).to.include({ yref: 'y2', y: 2e6 });
    const empty = channelElement('v1', { ...data, lower: [null, null], x: ['a', 'b'] });
    expect(renderElements([empty])).to.deep.include({ shapes: [], traces: [], annotations: [] });
  });

  it('moves a label aside when another one sits at nearly the same price', () => {
    const out = renderElements([
      level('s1', 'SAR', 100, 'resistance'),
      level('s2', 'SAR', 101, 'resistance'),
      level('s3', 'SAR', 150, 'resistance'),
      level('a1', 'ALERT', 100.5),
    ]);
    expect(out.annotations.map((a) => Math.round((a.x as number) * 100) / 100)).to.deep.equal([0, 0.17, 0, 1]);
  });

  it('writes a tag just below another under its level at the edge, right of the candles, before moving it inwards', () => {
    const out = renderElements([level('a1', 'ALERT', 100), level('a2', 'ALERT', 99), level('a3', 'ALERT', 99.5)]);
    const places = out.annotations.map((a) => ({ x: a.x, yanchor: a.yanchor }));
    // 99 hangs under its level, clear of 100's row; 99.5 would cover one or the other in either row there.
    expect(places).to.deep.equal([
      { x: 1, yanchor: 'bottom' },
      { x: 1, yanchor: 'top' },
      { x: 1 - 0.17, yanchor: 'bottom' },
    ]);
  });

  it('keeps long labels at the same level apart, on the RSI panel by its own scale', () => {
    const rsiBand = (id: string, label: string, upper = 70): ChartElement =>
      channelElement(id, { lower: 30, upper, axis: 'y4', label, dash: 'dot' });
    const inside = 'RSI(14) is inside the channel 30 – 70 · triggered ✕';
    const outside = 'RSI(14) is outside the channel 30 – 70 · triggered ✕';
    const out = renderElements([
      rsiBand('r1', inside),
      rsiBand('r2', outside),
      rsiBand('r3', 'RSI(14) enters the channel 30 – 75 ✕', 75),
      // A price alert at 70 is on another axis: it does not push the RSI labels aside.
      level('a1', 'ALERT', 70),
    ]);
    const boxes = out.annotations.map((a, i) => {
      const right = a.x as number;
      const text = a.text as string;
      return { id: out.annotationIds[i], left: right - labelWidth(text), right, row: a.yanchor, y: a.y as number };
    });
    expect(boxes.map((b) => b.right)[3], 'the price alert at the edge').to.equal(1);
    const rsi = boxes.slice(0, 3);
    for (const [i, a] of rsi.entries()) {
      expect(a.left, `${a.id} inside the plot`).to.be.at.least(0);
      for (const b of rsi.slice(i + 1)) {
        const apart = a.row !== b.row || a.right <= b.left || b.right <= a.left;
        expect(apart, `${a.id} and ${b.id} do not overlap`).to.equal(true);
      }
    }
  });

  it('draws bands below the traces and alert lines above them', () => {
    const out = renderElements([band, level('a1', 'ALERT', 185)]);
    expect(out.shapes.map((shape) => shape.layer)).to.deep.equal(['below', 'above']);
  });

  it('reads the prices of dragged lines from a relayout event', () => {
    const ids = ['a1', 's1', 'a2'];
    expect(shapeMoves({ 'shapes[0].y0': 191.234, 'shapes[0].y1': 191.234, 'shapes[0].x0': 0.1 }, ids)).to.deep.equal([
      { id: 'a1', y: 191.23 },
    ]);
    expect(shapeMoves({ 'shapes[2].y1': 50 }, ids)).to.deep.equal([{ id: 'a2', y: 50 }]);
    expect(shapeMoves({ 'xaxis.range[0]': 1, 'shapes[9].y0': 3 }, ids)).to.deep.equal([]);
    const tilted = shapeMoves({ 'shapes[0].y0': 190, 'shapes[0].y1': 195 }, ids, new Map([['a1', 190]]));
    expect(tilted, 'the end that moved').to.deep.equal([{ id: 'a1', y: 195 }]);
    const clicked = shapeMoves({ 'shapes[0].y0': 190.0031, 'shapes[0].y1': 190.0031 }, ids, new Map([['a1', 190]]));
    expect(clicked, 'a click on a line moves nothing').to.deep.equal([]);
  });
});
