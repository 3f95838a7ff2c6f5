import { expect } from 'chai';
import {
  MAP_HEIGHT,
  MAP_WIDTH,
  SECTOR_HEADER,
  marketMapFigure,
  marketMapLayout,
  movers,
  sectorChange,
  signedPercent,
  splitForLive,
  squarify,
  withQuotes,
  type MapCompany,
  type Rect,
} from './treemap.ts';

const area = (r: Rect) => (r.x1 - r.x0) * (r.y1 - r.y0);
const EPS = 1e-6;

function overlaps(a: Rect, b: Rect): boolean {
  return a.x0 < b.x1 - EPS && b.x0 < a.x1 - EPS && a.y0 < b.y1 - EPS && b.y0 < a.y1 - EPS;
}

function inside(r: Rect, box: Rect): boolean {
  return r.x0 >= box.x0 - EPS && r.x1 <= box.x1 + EPS && r.y0 >= box.y0 - EPS && r.y1 <= box.y1 + EPS;
}

describe('market map layout', () => {
  it('gives each value an area in proportion, inside the box, without overlaps, filling it', () => {
    const box = { x0: 0, y0: 0, x1: 600, y1: 400 };
    const values = [6, 6, 4, 3, 2, 2, 1];
    const placed = squarify(
      values.map((value, i) => ({ value, item: i })),
      box,
    );
    expect(placed).to.have.length(values.length);
    const total = values.reduce((a, b) => a + b, 0);
    for (const { item, rect } of placed) {
      expect(area(rect)).to.be.closeTo((values[item]! / total) * area(box), 1e-6);
      expect(inside(rect, box), `tile ${item} inside`).to.equal(true);
    }
    for (let i = 0; i < placed.length; i += 1) {
      for (let j = i + 1; j < placed.length; j += 1) {
        expect(overlaps(placed[i]!.rect, placed[j]!.rect), `${i} and ${j}`).to.equal(false);
      }
    }
    expect(placed.reduce((sum, p) => sum + area(p.rect), 0)).to.be.closeTo(area(box), 1e-6);
  });

  it('keeps tiles close to square (the squarified layout), not slices', () => {
    const placed = squarify(
      Array.from({ length: 16 }, (_, i) => ({ value: 1, item: i })),
      { x0: 0, y0: 0, x1: 400, y1: 400 },
    );
    const worst = Math.max(
      ...placed.map(({ rect }) => {
        const w = rect.x1 - rect.x0;
        const h = rect.y1 - rect.y0;
        return Math.max(w / h, h / w);
      }),
    );
    expect(worst).to.be.below(2);
  });

  it('gives nothing to values that are not positive', () => {
    const placed = squarify(
      [
        { value: 0, item: 'zero' },
        { value: -3, item: 'negative' },
        { value: Number.NaN, item: 'nan' },
        { value: 2, item: 'two' },
      ],
      { x0: 0, y0: 0, x1: 10, y1: 10 },
    );
    expect(placed).to.deep.equal([{ item: 'two', rect: { x0: 0, y0: 0, x1: 10, y1: 10 } }]);
    expect(squarify([], { x0: 0, y0: 0, x1: 10, y1: 10 })).to.deep.equal([]);
  });

  it('groups companies in sector boxes sized by total market cap, below a name band', () => {
    const companies: MapCompany[] = [
      { symbol: 'A', name: 'A', sector: 'Tech', marketcap: 3e12 },
      { symbol: 'B', name: 'B', sector: 'Tech', marketcap: 1e12 },
      { symbol: 'C', name: 'C', sector: 'Energy', marketcap: 1e12 },
      { symbol: 'Z', name: 'Z', sector: 'Energy', marketcap: 0 },
    ];
    const map = marketMapLayout(companies);
    expect(map.sectors.map((s) => s.sector)).to.deep.equal(['Tech', 'Energy']);
    const [tech, energy] = map.sectors;
    expect(area(tech!) / area(energy!)).to.be.closeTo(4, 1e-9);
    expect(map.tiles.map((t) => t.symbol)).to.deep.equal(['A', 'B', 'C']);
    for (const tile of map.tiles) {
      const box = map.sectors.find((s) => s.sector === tile.sector)!;
      expect(inside(tile, { ...box, y0: box.y0 + (box.labelled ? SECTOR_HEADER : 0) })).to.equal(true);
    }
    expect(map.width).to.equal(MAP_WIDTH);
    expect(map.height).to.equal(MAP_HEIGHT);
  });

  it('draws one bar per tile spanning it, coloured by % change around 0, with sector names and changes', () => {
    const companies: MapCompany[] = [
      { symbol: 'A', name: 'Alpha', sector: 'Tech', marketcap: 3e12 },
      { symbol: 'B', name: 'Beta', sector: 'Tech', marketcap: 1e12 },
    ];
    const map = marketMapLayout(companies);
    const figure = marketMapFigure(map, { A: { price: 10, changepct: 2 }, B: { price: 5, changepct: -2 } });
    const bar = figure.data[0] as unknown as {
      x: number[];
      y: number[];
      base: number[];
      width: number[];
      marker: { color: number[]; cmid: number };
      customdata: unknown[][];
    };
    const a = map.tiles[0]!;
    expect(bar.x[0]).to.equal((a.x0 + a.x1) / 2);
    expect(bar.base[0]).to.equal(a.y0);
    expect(bar.y[0]).to.equal(a.y1 - a.y0);
    expect(bar.width[0]).to.equal(a.x1 - a.x0);
    expect(bar.marker.color).to.deep.equal([2, -2]);
    expect(bar.marker.cmid).to.equal(0);
    expect(bar.customdata[1]!.slice(0, 3)).to.deep.equal(['B', 'Beta', '-2.00%']);
    expect(figure.layout.annotations?.[0]?.text).to.equal('<b>TECH</b> +1.00%');
  });

  it('weights a sector change by market cap', () => {
    const map = marketMapLayout([
      { symbol: 'A', name: 'A', sector: 'Tech', marketcap: 3 },
      { symbol: 'B', name: 'B', sector: 'Tech', marketcap: 1 },
    ]);
    expect(sectorChange(map.tiles, 'Tech', { A: { price: 1, changepct: 1 }, B: { price: 1, changepct: -3 } })).to.equal(
      0,
    );
    expect(sectorChange(map.tiles, 'Tech', {})).to.equal(null);
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

  it('writes signed percentages', () => {
    expect(signedPercent(1.254)).to.equal('+1.25%');
    expect(signedPercent(-0.4)).to.equal('-0.40%');
    expect(signedPercent(0)).to.equal('0.00%');
    expect(signedPercent(-0.001)).to.equal('0.00%');
  });
});
