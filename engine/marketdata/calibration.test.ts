import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import {
  PRESET_TARGETS,
  TOLERANCE,
  formatCalibration,
  measureCalibration,
  type CalibrationReport,
} from './calibration.ts';
import { generateHistory } from './generator.ts';
import { loadUniverse } from './universe.ts';

/** The same bars with every close-to-close move (and the day's range) made `factor` times larger. */
function amplified(bars: readonly DailyBar[], factor: number): DailyBar[] {
  const out: DailyBar[] = [];
  let close = bars[0]!.close;
  bars.forEach((bar, t) => {
    if (t > 0) close *= Math.exp(factor * Math.log(bar.close / bars[t - 1]!.close));
    const k = close / bar.close;
    out.push({ ...bar, open: bar.open * k, high: bar.high * k, low: bar.low * k, close });
  });
  return out;
}

describe('calibration of the generated history (default seed 42)', function () {
  this.timeout(60_000);
  const universe = loadUniverse();
  let history: Map<string, DailyBar[]>;
  let report: CalibrationReport;
  before(() => {
    history = generateHistory(universe, { seed: 42 });
    report = measureCalibration(universe, history);
  });

  it('measures every sector and the overall figures', () => {
    expect(report.symbols).to.equal(universe.length);
    expect(report.rows).to.have.length(11 * 5 + 4);
  });

  it(`meets every tabled figure within ${TOLERANCE * 100}% of its target`, () => {
    const flagged = report.rows.filter((r) => r.flagged);
    expect(flagged, formatCalibration(report)).to.deep.equal([]);
  });

  it('matches every screener preset with at least one stock on the last day', () => {
    expect(report.presets.map((p) => p.preset)).to.deep.equal(PRESET_TARGETS.map((p) => p.preset));
    for (const p of report.presets) expect(p.lastDayCount, p.preset).to.be.at.least(1);
  });

  it('flags a sector whose moves are half again as large as they should be', () => {
    const energy = new Set(universe.filter((e) => e.sector === 'Energy').map((e) => e.symbol));
    const bent = new Map([...history].map(([s, bars]) => [s, energy.has(s) ? amplified(bars, 1.5) : bars]));
    const flagged = measureCalibration(universe, bent).rows.filter((r) => r.flagged);
    expect(flagged.map((r) => `${r.group}: ${r.figure}`)).to.include('Energy: ann. vol (median)');
  });
});
