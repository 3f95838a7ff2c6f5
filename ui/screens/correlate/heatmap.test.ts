import { expect } from 'chai';
import { heatmapColumns, heatmapTraces, HEATMAP_TEXT_MAX } from './heatmap.ts';

interface BarTrace {
  type: string;
  orientation: string;
  y: string[];
  x: number[];
  customdata: [string, number][];
  marker: { color: number[]; cmin: number; cmax: number; showscale: boolean; colorbar?: unknown };
  text?: string[];
}

describe('correlation heatmap traces', () => {
  const symbols = ['A', 'B', 'C'];
  const values = [
    [1, 0.5, -0.25],
    [0.5, 1, 0.1],
    [-0.25, 0.1, 1],
  ];

  it('draws one stacked bar trace per column, each cell of width 1 coloured by its correlation', () => {
    const traces = heatmapTraces(symbols, values) as unknown as BarTrace[];
    expect(traces).to.have.length(3);
    const c = traces[2] as BarTrace;
    expect(c).to.include({ type: 'bar', orientation: 'h' });
    expect(c.y).to.deep.equal(['A', 'B', 'C']);
    expect(c.x).to.deep.equal([1, 1, 1]);
    expect(c.marker.color).to.deep.equal([-0.25, 0.1, 1]);
    expect(c.customdata[0]).to.deep.equal(['C', -0.25]);
    expect([c.marker.cmin, c.marker.cmax]).to.deep.equal([-1, 1]);
    expect(c.text).to.deep.equal(['-0.25', '0.10', '1.00']);
  });

  it('shows the colour bar once and leaves the values out of large matrices', () => {
    const traces = heatmapTraces(symbols, values) as unknown as BarTrace[];
    expect(traces.map((t) => t.marker.showscale)).to.deep.equal([true, false, false]);
    const many = Array.from({ length: HEATMAP_TEXT_MAX + 1 }, (_, i) => `S${i}`);
    const big = heatmapTraces(
      many,
      many.map(() => many.map(() => 0)),
    ) as unknown as BarTrace[];
    expect(big[0]?.text).to.equal(undefined);
  });

  it('labels the columns at the middle of their cells', () => {
    expect(heatmapColumns(symbols)).to.deep.equal({ tickvals: [0.5, 1.5, 2.5], ticktext: ['A', 'B', 'C'] });
  });
});
