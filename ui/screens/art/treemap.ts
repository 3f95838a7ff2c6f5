/**
 * The market map's pure parts: a squarified treemap layout (sectors by total market cap, then each sector's
 * companies by market cap), the Plotly figure that draws it (one bar per tile, each bar spanning its tile, coloured
 * by today's % change on a red-to-green scale centred at 0), the split of the universe between the live stream
 * and the polled quotes, and the biggest movers.
 */
import type { Annotations, Data, Layout, Shape } from 'plotly.js';
import { formatNumber } from '../../../domain/format.ts';

/** A rectangle in the map's coordinates (y grows downwards). */
export interface Rect {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** A company as the map places it. */
export interface MapCompany {
  readonly symbol: string;
  readonly name: string;
  readonly sector: string;
  readonly marketcap: number;
}

/** The live part of a quote the map shows. */
export interface MapQuote {
  readonly price: number;
  readonly changepct: number;
}

/** A company's tile. */
export interface Tile extends MapCompany, Rect {}

/** A sector's box, holding its tiles below its header. */
export interface SectorBox extends Rect {
  readonly sector: string;
  readonly marketcap: number;
  /** Whether the box is large enough for its name. */
  readonly labelled: boolean;
}

/** The layout of the map. */
export interface MarketMapLayout {
  readonly width: number;
  readonly height: number;
  readonly sectors: readonly SectorBox[];
  readonly tiles: readonly Tile[];
}

/** Width of the map's coordinate space (the chart stretches it to its width). */
export const MAP_WIDTH = 1000;
/** Height of the map's coordinate space. */
export const MAP_HEIGHT = 560;
/** Height of a sector's name band. */
export const SECTOR_HEADER = 16;
/** The % change at which the colour scale saturates (either way). */
export const COLOR_LIMIT = 3;
/** Most symbols one socket streams: the largest companies stream live, the others are polled. */
export const LIVE_SYMBOLS_MAX = 200;

const area = (r: Rect) => Math.max(0, r.x1 - r.x0) * Math.max(0, r.y1 - r.y0);

/** The worst aspect ratio of a row of areas laid along a side (Bruls, Huizing and van Wijk). */
function worst(areas: readonly number[], side: number): number {
  const sum = areas.reduce((a, b) => a + b, 0);
  const max = Math.max(...areas);
  const min = Math.min(...areas);
  const side2 = side * side;
  return Math.max((side2 * max) / (sum * sum), (sum * sum) / (side2 * min));
}

/**
 * Lays values out in a rectangle as a squarified treemap: each item gets a rectangle whose area is its share of
 * the total, largest first, rows grown while they keep the tiles close to square. Items without a positive value
 * get nothing.
 */
export function squarify<T>(items: readonly { value: number; item: T }[], rect: Rect): { item: T; rect: Rect }[] {
  const positive = items.filter((i) => Number.isFinite(i.value) && i.value > 0).sort((a, b) => b.value - a.value);
  const total = positive.reduce((sum, i) => sum + i.value, 0);
  const out: { item: T; rect: Rect }[] = [];
  if (total <= 0 || area(rect) <= 0) return out;
  const scale = area(rect) / total;
  let remaining = positive.map((i) => ({ item: i.item, area: i.value * scale }));
  let { x0, y0 } = rect;
  const { x1, y1 } = rect;
  while (remaining.length > 0) {
    const w = x1 - x0;
    const h = y1 - y0;
    const side = Math.min(w, h);
    let count = 1;
    while (
      count < remaining.length &&
      worst(
        remaining.slice(0, count + 1).map((r) => r.area),
        side,
      ) <=
        worst(
          remaining.slice(0, count).map((r) => r.area),
          side,
        )
    ) {
      count += 1;
    }
    const row = remaining.slice(0, count);
    remaining = remaining.slice(count);
    const rowArea = row.reduce((sum, r) => sum + r.area, 0);
    const last = remaining.length === 0;
    if (w >= h) {
      // A column at the left, as wide as the row's area over the height.
      const thickness = last ? w : rowArea / h;
      let y = y0;
      row.forEach((r, i) => {
        const end = i === row.length - 1 ? y1 : y + r.area / thickness;
        out.push({ item: r.item, rect: { x0, y0: y, x1: x0 + thickness, y1: end } });
        y = end;
      });
      x0 += thickness;
    } else {
      // A row at the top, as tall as the row's area over the width.
      const thickness = last ? h : rowArea / w;
      let x = x0;
      row.forEach((r, i) => {
        const end = i === row.length - 1 ? x1 : x + r.area / thickness;
        out.push({ item: r.item, rect: { x0: x, y0, x1: end, y1: y0 + thickness } });
        x = end;
      });
      y0 += thickness;
    }
  }
  return out;
}

/** The map of a universe: sectors by total market cap, each with a name band and its companies' tiles. */
export function marketMapLayout(
  companies: readonly MapCompany[],
  width = MAP_WIDTH,
  height = MAP_HEIGHT,
): MarketMapLayout {
  const bySector = new Map<string, MapCompany[]>();
  for (const company of companies) {
    if (!(company.marketcap > 0)) continue;
    const list = bySector.get(company.sector);
    if (list) list.push(company);
    else bySector.set(company.sector, [company]);
  }
  const sectorItems = [...bySector].map(([sector, list]) => ({
    value: list.reduce((sum, c) => sum + c.marketcap, 0),
    item: { sector, list },
  }));
  const sectors: SectorBox[] = [];
  const tiles: Tile[] = [];
  for (const { item, rect } of squarify(sectorItems, { x0: 0, y0: 0, x1: width, y1: height })) {
    const labelled = rect.y1 - rect.y0 > SECTOR_HEADER * 2.5 && rect.x1 - rect.x0 > 60;
    const marketcap = item.list.reduce((sum, c) => sum + c.marketcap, 0);
    sectors.push({ sector: item.sector, marketcap, labelled, ...rect });
    const inner: Rect = { ...rect, y0: rect.y0 + (labelled ? SECTOR_HEADER : 0) };
    for (const placed of squarify(
      item.list.map((c) => ({ value: c.marketcap, item: c })),
      inner,
    )) {
      tiles.push({ ...placed.item, ...placed.rect });
    }
  }
  return { width, height, sectors, tiles };
}

/** A sector's % change today, weighted by market cap over the companies with a quote; null when none has one. */
export function sectorChange(
  tiles: readonly Tile[],
  sector: string,
  quotes: Readonly<Record<string, MapQuote>>,
): number | null {
  let weight = 0;
  let sum = 0;
  for (const tile of tiles) {
    const quote = quotes[tile.symbol];
    if (tile.sector !== sector || !quote) continue;
    weight += tile.marketcap;
    sum += tile.marketcap * quote.changepct;
  }
  return weight > 0 ? sum / weight : null;
}

/** A signed percentage with 2 decimals: `+1.25%`, `-0.40%`, `0.00%`. */
export function signedPercent(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return `${rounded > 0 ? '+' : ''}${rounded.toFixed(2)}%`;
}

/** The red-to-green scale, neutral grey at 0. */
export const CHANGE_COLORSCALE: [number, string][] = [
  [0, '#c62828'],
  [0.35, '#8e3b3b'],
  [0.5, '#414554'],
  [0.65, '#2f6b3f'],
  [1, '#1f9d46'],
];

/** The Plotly figure of a map with the quotes known: one bar per tile, sector outlines and names. */
export function marketMapFigure(
  map: MarketMapLayout,
  quotes: Readonly<Record<string, MapQuote>>,
): { data: Data[]; layout: Partial<Layout> } {
  const { tiles } = map;
  const change = tiles.map((t) => quotes[t.symbol]?.changepct ?? 0);
  const data: Data[] = [
    {
      type: 'bar',
      orientation: 'v',
      x: tiles.map((t) => (t.x0 + t.x1) / 2),
      y: tiles.map((t) => t.y1 - t.y0),
      base: tiles.map((t) => t.y0),
      width: tiles.map((t) => t.x1 - t.x0),
      customdata: tiles.map((t, i) => {
        const quote = quotes[t.symbol];
        return [
          t.symbol,
          t.name,
          quote ? signedPercent(quote.changepct) : 'n/a',
          quote ? formatNumber(quote.price) : 'n/a',
          t.sector,
          formatNumber(t.marketcap),
          change[i]!,
        ];
      }) as unknown as number[],
      text: tiles.map((t) => t.symbol),
      texttemplate: '<b>%{customdata[0]}</b><br>%{customdata[2]}',
      textposition: 'inside',
      insidetextanchor: 'middle',
      textangle: 0,
      textfont: { color: '#ffffff' },
      hovertemplate:
        '<b>%{customdata[0]}</b> %{customdata[1]}<br>%{customdata[4]}<br>Price %{customdata[3]}' +
        '<br>Today %{customdata[2]}<br>Market cap %{customdata[5]}<extra></extra>',
      marker: {
        color: change,
        colorscale: CHANGE_COLORSCALE,
        cmin: -COLOR_LIMIT,
        cmax: COLOR_LIMIT,
        cmid: 0,
        line: { color: '#1b2430', width: 0.6 },
        colorbar: {
          title: { text: 'Today', side: 'top' },
          ticksuffix: '%',
          thickness: 12,
          len: 0.8,
          tickvals: [-COLOR_LIMIT, -COLOR_LIMIT / 2, 0, COLOR_LIMIT / 2, COLOR_LIMIT],
          ticktext: [-COLOR_LIMIT, -COLOR_LIMIT / 2, 0, COLOR_LIMIT / 2, COLOR_LIMIT].map(signedPercent),
        },
        showscale: true,
      },
    } as Data,
  ];
  const shapes: Partial<Shape>[] = map.sectors.map((s) => ({
    type: 'rect',
    xref: 'x',
    yref: 'y',
    x0: s.x0,
    x1: s.x1,
    y0: s.y0,
    y1: s.y1,
    line: { color: '#f5f7fb', width: 3 },
    fillcolor: 'rgba(0,0,0,0)',
    layer: 'above',
  }));
  const annotations: Partial<Annotations>[] = map.sectors
    .filter((s) => s.labelled)
    .map((s) => {
      const pct = sectorChange(tiles, s.sector, quotes);
      return {
        x: s.x0 + 4,
        y: s.y0 + 2,
        xref: 'x',
        yref: 'y',
        xanchor: 'left',
        yanchor: 'top',
        showarrow: false,
        text: `<b>${s.sector.toUpperCase()}</b>${pct === null ? '' : ` ${signedPercent(pct)}`}`,
        font: { size: 10, color: '#1b2430' },
      };
    });
  // The sector name bands: light strips behind the names.
  const bands: Partial<Shape>[] = map.sectors
    .filter((s) => s.labelled)
    .map((s) => ({
      type: 'rect',
      xref: 'x',
      yref: 'y',
      x0: s.x0,
      x1: s.x1,
      y0: s.y0,
      y1: s.y0 + SECTOR_HEADER,
      line: { width: 0 },
      fillcolor: '#e4e8ef',
      layer: 'below',
    }));
  const layout: Partial<Layout> = {
    margin: { l: 4, r: 4, t: 4, b: 4 },
    barmode: 'overlay',
    bargap: 0,
    showlegend: false,
    dragmode: false,
    hovermode: 'closest',
    // Labels too small to read in their tile are hidden (a layout key the plotly.js types lack).
    ...{ uniformtext: { mode: 'hide', minsize: 8 } },
    xaxis: { range: [0, map.width], visible: false, fixedrange: true },
    yaxis: { range: [map.height, 0], visible: false, fixedrange: true },
    shapes: [...bands, ...shapes],
    annotations,
  };
  return { data, layout };
}

/** The universe split between the live stream (the largest companies, at most `max`) and the polled rest. */
export function splitForLive(
  companies: readonly MapCompany[],
  max = LIVE_SYMBOLS_MAX,
): { readonly live: readonly string[]; readonly polled: readonly string[] } {
  const sorted = [...companies].sort((a, b) => b.marketcap - a.marketcap).map((c) => c.symbol);
  return { live: sorted.slice(0, max), polled: sorted.slice(max) };
}

/** The quotes after a batch: each quote replaces the one of its symbol; an older quote than the one held is ignored. */
export function withQuotes(
  held: Readonly<Record<string, MapQuote & { ts?: string }>>,
  batch: readonly (MapQuote & { symbol: string; ts?: string })[],
): Record<string, MapQuote & { ts?: string }> {
  const next: Record<string, MapQuote & { ts?: string }> = { ...held };
  for (const quote of batch) {
    const current = next[quote.symbol];
    if (current?.ts && quote.ts && quote.ts < current.ts) continue;
    next[quote.symbol] = {
      price: quote.price,
      changepct: quote.changepct,
      ...(quote.ts ? { ts: quote.ts } : {}),
    };
  }
  return next;
}

/** The biggest gainers and losers among the companies with a quote, `count` each, largest moves first. */
export function movers(
  companies: readonly MapCompany[],
  quotes: Readonly<Record<string, MapQuote>>,
  count = 5,
): { readonly gainers: readonly (MapCompany & MapQuote)[]; readonly losers: readonly (MapCompany & MapQuote)[] } {
  const quoted = companies.flatMap((c) => {
    const q = quotes[c.symbol];
    return q ? [{ ...c, price: q.price, changepct: q.changepct }] : [];
  });
  const gainers = quoted
    .filter((c) => c.changepct > 0)
    .sort((a, b) => b.changepct - a.changepct)
    .slice(0, count);
  const losers = quoted
    .filter((c) => c.changepct < 0)
    .sort((a, b) => a.changepct - b.changepct)
    .slice(0, count);
  return { gainers, losers };
}
