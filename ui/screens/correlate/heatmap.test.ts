import { expect } from 'chai';
import { heatmapTraces, HEATMAP_TEXT_MAX } from './heatmap.ts';

interface HeatmapTrace {
  type: string;
  x: string[];
  y: string[];
  z: number[][];
  zmin: number;
  zmax: number;
  texttemplate?: string;
}

describe('correlation heatmap trace', () => {
  const symbols = ['A', 'B', 'C'];
  const values = [
    [1, 0.5, -0.25],
    [0.5, 1, 0.1],
    [-0.25, 0.1, 1],
  ];

  it('is one heatmap trace whose cell (row i, column j) is the correlation of i with j, from -1 to +1', () => {
    const traces = heatmapTraces(symbols, values) as unknown as HeatmapTrace[];
    expect(traces).to.have.length(1);
    const [trace] = traces;
    expect(trace!.type).to.equal('heatmap');
    expect(trace!.x).to.deep.equal(symbols);
    expect(trace!.y).to.deep.equal(symbols);
    expect(trace!.z).to.deep.equal(values);
    expect([trace!.zmin, trace!.zmax]).to.deep.equal([-1, 1]);
  });

  it('leaves a missing value empty (NaN) rather than zero', () => {
    const [trace] = heatmapTraces(['A', 'B'], [[1], [0.3, 1]]) as unknown as HeatmapTrace[];
    expect(trace!.z[0]![1]).to.be.NaN;
    expect(trace!.z[1]).to.deep.equal([0.3, 1]);
  });

  it('writes the values in the cells only while they fit', () => {
    const [small] = heatmapTraces(symbols, values) as unknown as HeatmapTrace[];
    expect(small!.texttemplate).to.equal('%{z:.2f}');
    const many = Array.from({ length: HEATMAP_TEXT_MAX + 1 }, (_, i) => `S${i}`);
    const [large] = heatmapTraces(many, []) as unknown as HeatmapTrace[];
    expect(large!.texttemplate).to.equal(undefined);
  });
});
