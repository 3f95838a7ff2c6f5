import { expect } from 'chai';
import {
  clampMonths,
  clickLine,
  DARK_LINE_COLORS,
  everyLineRemoved,
  hoverLine,
  lastValue,
  legendEntries,
  lineColor,
  lineLook,
  lineTraces,
  LINE_COLORS,
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

/** The CSS names the palettes use, as `#rrggbb`. */
const NAMED: Readonly<Record<string, string>> = {
  red: '#ff0000',
  black: '#000000',
  brown: '#a52a2a',
  orange: '#ffa500',
  purple: '#800080',
  green: '#008000',
};

/** The WCAG relative luminance of a colour, `#rrggbb` or one of {@link NAMED}. */
function luminance(color: string): number {
  const hex = NAMED[color] ?? color;
  expect(hex, color).to.match(/^#[\da-f]{6}$/i);
  const [r, g, b] = [1, 3, 5].map((at) => {
    const c = parseInt(hex.slice(at, at + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two colours (1 to 21). */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

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
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => lineColor(i))).to.deep.equal([
      'red',
      'black',
      '#a7d129',
      'brown',
      'orange',
      'purple',
      'green',
    ]);
  });

  it('draws no two of 80 lines alike: past the colours, the same colours dashed, dotted, dash-dotted, as the legend shows', () => {
    const many = Array.from({ length: 80 }, (_, i) => ({ key: `S${i}`, label: `S${i}`, values: [0, i] }));
    const { data } = lineTraces(['d1', 'd2'], many, NO_FOCUS);
    const looks = (data as { line: { color: string; dash: string } }[]).map((t) => `${t.line.color} ${t.line.dash}`);
    expect(new Set(looks).size).to.equal(80);
    expect(looks[0]).to.equal('red solid');
    expect(looks[LINE_COLORS.length]).to.equal('red dash');
    expect(looks[2 * LINE_COLORS.length + 1]).to.equal('black dot');
    const legend = legendEntries(many, NO_FOCUS);
    expect(legend.find((e) => e.key === `S${3 * LINE_COLORS.length}`)).to.deep.include({
      color: 'red',
      dash: 'dashdot',
    });
  });

  it("keeps each line 3:1 from the dark theme's cards, changing only the colours that were not", () => {
    // The dark theme's card (`--panel` of styles.css) and the WCAG contrast ratio of two colours.
    const card = '#161b22';
    expect(LINE_COLORS.length).to.equal(DARK_LINE_COLORS.length);
    LINE_COLORS.forEach((light, i) => {
      const dark = lineColor(i, 'dark');
      expect(contrast(dark, card), `${dark} for ${light}`).to.be.at.least(3);
      if (contrast(light, card) >= 3) expect(dark, `${light} stands out already`).to.equal(light);
      else expect(dark, `${light} is too dark`).not.to.equal(light);
    });
    // Black, the spec's second line, is drawn in the dark theme's ink; the chart's traces and legend agree.
    expect(lineColor(1, 'dark')).to.equal('#e6edf3');
    const { data } = lineTraces(['d1', 'd2', 'd3'], series, NO_FOCUS, 'dark');
    const legend = legendEntries(series, NO_FOCUS, 'dark');
    expect((data as { line: { color: string } }[]).map((t) => t.line.color)).to.deep.equal(
      series.map((_, i) => lineColor(i, 'dark')),
    );
    expect(legend.map((e) => e.color)).to.have.members(series.map((_, i) => lineColor(i, 'dark')));
  });

  it('lists the legend best last value first, unknown last, without removed lines', () => {
    const legend = legendEntries(series, removeLine(NO_FOCUS, 'AAPL'));
    expect(legend.map((e) => [e.key, e.last])).to.deep.equal([
      ['NVDA', 9],
      ['MSFT', -1],
    ]);
    expect(lastValue([null, null])).to.equal(null);
  });

  it('tells when every line is removed, so no empty plot is drawn', () => {
    const allButOne = removeLine(removeLine(NO_FOCUS, 'AAPL'), 'MSFT');
    expect(everyLineRemoved(series, allButOne)).to.equal(false);
    const all = removeLine(allButOne, 'NVDA');
    expect(everyLineRemoved(series, all)).to.equal(true);
    expect(lineTraces(['2026-01-02'], series, all).data).to.deep.equal([]);
    expect(everyLineRemoved(series, restoreLines(all))).to.equal(false);
    expect(everyLineRemoved([], NO_FOCUS), 'a chart without lines says so itself').to.equal(false);
  });

  it('keeps the months on the slider', () => {
    expect(clampMonths(1)).to.equal(3);
    expect(clampMonths(61)).to.equal(60);
    expect(clampMonths(Number.NaN)).to.equal(3);
  });
});
