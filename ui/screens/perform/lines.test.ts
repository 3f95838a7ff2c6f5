import { expect } from 'chai';
import {
  clampMonths,
  clickLine,
  hoverLine,
  lastValue,
  legendEntries,
  lineColor,
  lineLook,
  lineTraces,
  NO_FOCUS,
  removeLine,
  restoreLines,
  showAllLines,
  type LineSeries,
} from './lines.ts';

const series: LineSeries[] = [
  { key: 'AAPL', label: 'AAPL', values: [0, 2, 5] },
  { key: 'MSFT', label: 'MSFT', values: [0, -1, null] },
  { key: 'NVDA', label: 'NVDA', values: [0, 4, 9] },
];

describe('line focus of the % change charts', () => {
  it('isolates a line on the first click and asks to open it on a second click of the same line', () => {
    const first = clickLine(NO_FOCUS, 'AAPL');
    expect(first).to.deep.equal({ focus: { ...NO_FOCUS, isolated: 'AAPL' }, open: null });
    const second = clickLine(first.focus, 'AAPL');
    expect(second.open).to.equal('AAPL');
    expect(second.focus).to.equal(first.focus);
  });

  it('moves the isolation to another line clicked while one is isolated, without opening', () => {
    const { focus } = clickLine(clickLine(NO_FOCUS, 'AAPL').focus, 'MSFT');
    expect(focus.isolated).to.equal('MSFT');
  });

  it('highlights the hovered line and dims the others until the pointer leaves', () => {
    const hovered = hoverLine(NO_FOCUS, 'NVDA');
    expect(lineLook(hovered, 'NVDA')).to.equal('highlighted');
    expect(lineLook(hovered, 'AAPL')).to.equal('dimmed');
    expect(lineLook(hoverLine(hovered, null), 'AAPL')).to.equal('normal');
    expect(hoverLine(hovered, 'NVDA')).to.equal(hovered);
  });

  it('keeps the isolated line standing out while another is hovered', () => {
    const focus = hoverLine(clickLine(NO_FOCUS, 'AAPL').focus, 'MSFT');
    expect(lineLook(focus, 'AAPL')).to.equal('isolated');
    expect(lineLook(focus, 'MSFT')).to.equal('dimmed');
  });

  it('removes a line once, ends its isolation, and restores every removed line', () => {
    const isolated = clickLine(NO_FOCUS, 'AAPL').focus;
    const removed = removeLine(removeLine(isolated, 'AAPL'), 'AAPL');
    expect(removed).to.deep.equal({ hovered: null, isolated: null, removed: ['AAPL'] });
    expect(restoreLines(removeLine(removed, 'MSFT'))).to.deep.equal(NO_FOCUS);
    expect(restoreLines(NO_FOCUS)).to.equal(NO_FOCUS);
  });

  it('shows every line again after an isolation', () => {
    expect(showAllLines(clickLine(NO_FOCUS, 'AAPL').focus).isolated).to.equal(null);
    expect(showAllLines(NO_FOCUS)).to.equal(NO_FOCUS);
  });
});

describe('traces and legend of the % change charts', () => {
  it('leaves removed lines out, draws the isolated one last and names each trace by key', () => {
    const focus = removeLine(clickLine(NO_FOCUS, 'AAPL').focus, 'MSFT');
    const { data, keys } = lineTraces(['d1', 'd2', 'd3'], series, focus);
    expect(keys).to.deep.equal(['NVDA', 'AAPL']);
    const [nvda, aapl] = data as { opacity: number; line: { width: number; color: string }; y: unknown[] }[];
    expect(aapl?.opacity).to.equal(1);
    expect(aapl?.line.width).to.be.above(nvda?.line.width ?? 0);
    expect(nvda?.opacity).to.be.below(0.5);
    expect(aapl?.line.color).to.equal(lineColor(0));
    expect(aapl?.y).to.deep.equal([0, 2, 5]);
  });

  it('keeps the order of the lines while one is hovered, so the line under the pointer stays put', () => {
    const { data, keys } = lineTraces(['d1', 'd2', 'd3'], series, hoverLine(NO_FOCUS, 'AAPL'));
    expect(keys).to.deep.equal(['AAPL', 'MSFT', 'NVDA']);
    expect((data as { legendgroup: string }[]).map((t) => t.legendgroup)).to.deep.equal(keys);
    expect((data[0] as { line: { width: number } }).line.width).to.be.above(2);
  });

  it('starts with the spec colour sequence', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map(lineColor)).to.deep.equal([
      'red',
      'black',
      '#a7d129',
      'brown',
      'orange',
      'purple',
      'green',
    ]);
  });

  it('lists the legend best last value first, unknown last, without removed lines', () => {
    const legend = legendEntries(series, removeLine(NO_FOCUS, 'AAPL'));
    expect(legend.map((e) => [e.key, e.last])).to.deep.equal([
      ['NVDA', 9],
      ['MSFT', -1],
    ]);
    expect(lastValue([null, null])).to.equal(null);
  });

  it('keeps the months on the slider', () => {
    expect(clampMonths(1)).to.equal(3);
    expect(clampMonths(61)).to.equal(60);
    expect(clampMonths(Number.NaN)).to.equal(3);
  });
});
