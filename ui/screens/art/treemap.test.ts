import { expect } from 'chai';
import {
  MARKET_ID,
  formatPrice,
  marketMapFigure,
  movers,
  sectorId,
  splitForLive,
  weightedChange,
  withQuotes,
  type MapCompany,
} from './treemap.ts';

interface TreemapTrace {
  type: string;
  ids: string[];
  labels: string[];
  parents: string[];
  values: number[];
  branchvalues: string;
  customdata: (string | number)[][];
  marker: { colors: number[]; cmin: number; cmax: number; cmid: number };
}

const companies: MapCompany[] = [
  { symbol: 'A', name: 'Alpha', sector: 'Tech', marketcap: 3e12 },
  { symbol: 'B', name: 'Beta', sector: 'Tech', marketcap: 1e12 },
  { symbol: 'C', name: 'Gamma', sector: 'Energy', marketcap: 2e12 },
  { symbol: 'Z', name: 'Zero', sector: 'Energy', marketcap: 0 },
];

describe('market map figure', () => {
  it('is one treemap of the market, its sectors and their companies, sized by market cap', () => {
    const [trace, ...others] = marketMapFigure(companies, {}).data as unknown as TreemapTrace[];
    expect(others).to.have.length(0);
    expect(trace!.type).to.equal('treemap');
    expect(trace!.branchvalues).to.equal('total');
    expect(trace!.ids).to.deep.equal([MARKET_ID, sectorId('Tech'), sectorId('Energy'), 'A', 'B', 'C']);
    expect(trace!.parents).to.deep.equal([
      '',
      MARKET_ID,
      MARKET_ID,
      sectorId('Tech'),
      sectorId('Tech'),
      sectorId('Energy'),
    ]);
    expect(trace!.values).to.deep.equal([6e12, 4e12, 2e12, 3e12, 1e12, 2e12]);
    expect(trace!.labels.slice(3)).to.deep.equal(['A', 'B', 'C']);
  });

  it('colours each node by its % change around 0, a sector and the market by their cap-weighted change', () => {
    const quotes = { A: { price: 10, changepct: 2 }, B: { price: 5, changepct: -2 }, C: { price: 7, changepct: -1 } };
    const trace = marketMapFigure(companies, quotes).data[0] as unknown as TreemapTrace;
    expect(trace.marker.colors).to.deep.equal([(3 * 2 - 1 * 2 - 2 * 1) / 6, 1, -1, 2, -2, -1]);
    expect(trace.marker.cmid).to.equal(0);
    expect(trace.marker.cmin).to.equal(-trace.marker.cmax);
    expect(trace.customdata[4]!.slice(0, 3)).to.deep.equal(['B', 'Beta', '-2.00%']);
    expect(trace.customdata[1]!.slice(0, 3)).to.deep.equal(['', 'Tech', '+1.00%']);
  });

  it('shows n/a for a company without a quote, and a sector without any as unchanged', () => {
    const trace = marketMapFigure(companies, { A: { price: 10, changepct: 2 } }).data[0] as unknown as TreemapTrace;
    expect(trace.customdata[5]!.slice(0, 4)).to.deep.equal(['C', 'Gamma', 'n/a', 'n/a']);
    expect(trace.customdata[2]![2]).to.equal('n/a');
    expect(trace.marker.colors[2]).to.equal(0);
  });

  it('shows a price as a price in the hover, thousands and all, never in millions', () => {
    const quotes = { A: { price: 7483.75, changepct: 1 }, B: { price: 12.5, changepct: 0 } };
    const trace = marketMapFigure(companies, quotes).data[0] as unknown as TreemapTrace;
    expect(trace.customdata[3]!.slice(0, 4)).to.deep.equal(['A', 'Alpha', '+1.00%', '7,483.75']);
    expect(trace.customdata[4]![3]).to.equal('12.50');
  });

  it('weights a change by market cap over the companies with a quote', () => {
    const tech = companies.slice(0, 2);
    expect(weightedChange(tech, { A: { price: 1, changepct: 1 }, B: { price: 1, changepct: -3 } })).to.equal(0);
    expect(weightedChange(tech, { A: { price: 1, changepct: 1 } })).to.equal(1);
    expect(weightedChange(tech, {})).to.equal(null);
  });
});

describe('market map quotes', () => {
  it('streams the largest companies and polls the rest', () => {
    const companies = [5, 1, 9, 3].map((cap, i) => ({ symbol: `S${i}`, name: '', sector: 'X', marketcap: cap }));
    expect(splitForLive(companies, 2)).to.deep.equal({ live: ['S2', 'S0'], polled: ['S3', 'S1'] });
  });

  it('replaces the quote of a symbol unless the new one is older', () => {
    const held = withQuotes({}, [{ symbol: 'A', price: 1, changepct: 0.5, ts: '2026-01-02T15:00:01Z' }]);
    const newer = withQuotes(held, [{ symbol: 'A', price: 2, changepct: 1, ts: '2026-01-02T15:00:02Z' }]);
    expect(newer.A).to.deep.equal({ price: 2, changepct: 1, ts: '2026-01-02T15:00:02Z' });
    const older = withQuotes(newer, [{ symbol: 'A', price: 0.5, changepct: -1, ts: '2026-01-02T15:00:00Z' }]);
    expect(older.A?.price).to.equal(2);
    expect(held.A?.price, 'the held quotes are not changed').to.equal(1);
  });

  it('lists the biggest gainers and losers', () => {
    const companies = ['A', 'B', 'C', 'D'].map((symbol) => ({ symbol, name: symbol, sector: 'X', marketcap: 1 }));
    const result = movers(
      companies,
      {
        A: { price: 1, changepct: 3 },
        B: { price: 1, changepct: -1 },
        C: { price: 1, changepct: 0 },
        D: { price: 1, changepct: 5 },
      },
      1,
    );
    expect(result.gainers.map((m) => m.symbol)).to.deep.equal(['D']);
    expect(result.losers.map((m) => m.symbol)).to.deep.equal(['B']);
  });

  it('writes prices with 2 decimals and thousands separators', () => {
    expect(formatPrice(7483.75)).to.equal('7,483.75');
    expect(formatPrice(1000)).to.equal('1,000.00');
    expect(formatPrice(4_999_999.5)).to.equal('4,999,999.50');
    expect(formatPrice(0.5)).to.equal('0.50');
    expect(formatPrice(Number.NaN)).to.equal('n/a');
  });
});
