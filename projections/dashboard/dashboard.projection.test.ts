import { expect } from 'chai';
import { DEFAULT_DASHBOARD_OPTIONS } from '../../domain/dashboard/options.ts';
import { project, recorded } from '../testing/inMemory.ts';
import {
  dashboardLayoutProjection,
  dashboardOptionsProjection,
  dashboardStocksProjection,
} from './dashboard.projection.ts';

describe('dashboard projections', () => {
  it('fold the layout from the default, per user, and ignore the same events applied twice', async () => {
    const events = [
      recorded('ada', 'DashboardComponentToggled', { layoutId: 1, compId: 4, present: true }),
      recorded('bob', 'DashboardLayoutSaved', { layouts: [{ layoutId: 9, compId: [5] }] }),
      recorded('ada', 'DashboardComponentToggled', { layoutId: 2, compId: 2, present: false }),
    ];
    for (const run of [events, [...events, ...events]]) {
      const docs = await project(dashboardLayoutProjection, run);
      expect(docs.get('ada')).to.deep.equal({
        layouts: [
          { layoutId: 1, compId: [1, 4] },
          { layoutId: 2, compId: [] },
          { layoutId: 3, compId: [3] },
        ],
      });
      expect(docs.get('bob')).to.deep.equal({ layouts: [{ layoutId: 9, compId: [5] }] });
    }
  });

  it('fold the options over the defaults', async () => {
    const docs = await project(dashboardOptionsProjection, [
      recorded('ada', 'DashboardOptionsChanged', { changes: { subheader: 'detailed' } }),
      recorded('ada', 'DashboardOptionsChanged', { changes: { slider: { type: 'Y', val: 1 } } }),
    ]);
    expect(docs.get('ada')).to.deep.equal({
      options: { ...DEFAULT_DASHBOARD_OPTIONS, subheader: 'detailed', slider: { type: 'Y', val: 1 } },
    });
  });

  it('fold the stock list', async () => {
    const docs = await project(dashboardStocksProjection, [
      recorded('ada', 'DashboardStocksSet', { symbols: ['AAPL', 'MSFT'] }),
      recorded('ada', 'DashboardStockAdded', { symbol: 'IBM' }),
    ]);
    expect(docs.get('ada')).to.deep.equal({ symbols: ['AAPL', 'MSFT', 'IBM'] });
  });

  it('each read only the events of their own query', () => {
    const all = [dashboardLayoutProjection, dashboardOptionsProjection, dashboardStocksProjection].flatMap(
      (p) => p.handles,
    );
    expect(new Set(all).size).to.equal(all.length);
  });
});
