import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../domain/ids.ts';
import type { RecordedEvent } from '../platform/eventstore/port.ts';
import { openSqliteReadModelStore } from '../platform/readmodels/sqlite.ts';
import { alertsProjection } from './alerts/alerts.projection.ts';
import { dashboardStocksProjection } from './dashboard/dashboard.projection.ts';
import { readModelDemand } from './demand.ts';
import { portfolioProjection } from './portfolio/portfolio.projection.ts';
import { projectionConsumer, type Projection } from './projection.ts';
import { applyToDocuments, recorded } from './testing/inMemory.ts';
import { watchlistProjection } from './watchlist/watchlist.projection.ts';

describe('symbols users need (provider stream demand)', function () {
  it('takes the symbols of dashboards, watch lists, portfolios and armed alerts from the read models, each once', async function () {
    const store = openSqliteReadModelStore({ file: ':memory:' });
    try {
      const write = async <D>(projection: Projection<D>, events: RecordedEvent[]): Promise<void> => {
        const docs = await applyToDocuments(projection, events);
        await store.commit(
          projectionConsumer(projection).name,
          { position: events.at(-1)!.position, version: projection.version },
          [...docs].map(([key, doc]) => ({ collection: projection.name, key, doc })),
        );
      };
      await write(dashboardStocksProjection, [recorded('u1', 'DashboardStocksSet', { symbols: ['NVDA', 'AAPL'] })]);
      await write(watchlistProjection, [
        recorded('u2', 'SymbolAddedToWatchlist', { symbol: 'MSFT' }),
        recorded('u2', 'SymbolAddedToWatchlist', { symbol: 'AAPL' }),
        recorded('u2', 'SymbolRemovedFromWatchlist', { symbol: 'MSFT' }),
      ]);
      await write(portfolioProjection, [recorded('u3', 'SymbolAddedToPortfolio', { symbol: 'KO' })]);
      const alert = (n: number, symbol: string) => ({
        alertId: uuidV5(`demand-${n}`, STOCKPULSE_NAMESPACE),
        symbol,
        kind: 'PRICE',
        alerttype: 'U',
        threshold: 100,
        thresholdCents: 10000,
        period: null,
        createdt: '2025-03-10T15:00:00.000Z',
      });
      await write(alertsProjection, [
        recorded('u4', 'AlertCreated', alert(1, 'XOM')),
        recorded('u4', 'AlertCreated', alert(2, 'TSLA')),
        recorded('u4', 'AlertTriggered', { alertId: alert(2, 'TSLA').alertId, at: '2025-03-11T15:00:00.000Z' }),
        recorded('u5', 'AlertCreated', alert(3, 'AAPL')),
      ]);

      const symbols = await readModelDemand(store).symbols();
      expect([...symbols].sort()).to.deep.equal(['AAPL', 'KO', 'NVDA', 'XOM']);
      // Given the armed symbols (the engine's index), the alerts read model is not read.
      const fromIndex = await readModelDemand(store, () => ['TSLA', 'NVDA']).symbols();
      expect([...fromIndex].sort()).to.deep.equal(['AAPL', 'KO', 'NVDA', 'TSLA']);
    } finally {
      await store.close();
    }
  });
});
