/**
 * The market map's pure parts: the Plotly treemap figure (sectors by total market cap, then each sector's
 * companies by market cap, coloured by today's % change on a red-to-green scale centred at 0; a click on a
 * sector zooms into it, and Plotly fits the labels), the split of the universe between the live stream and the
 * polled quotes, and the biggest movers.
 */
import type { Data, Layout } from 'plotly.js';
import { formatNumber, formatPrice, formatSignedPercent } from '../../../domain/format.ts';

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

/** The % change at which the colour scale saturates (either way). */
export const COLOR_LIMIT = 3;
/** Most symbols one socket streams: the largest companies stream live, the others are polled. */
export const LIVE_SYMBOLS_MAX = 200;
/** The id of the map's root node, the whole market. */
export const MARKET_ID = 'market';

/** The id of a sector's node (company nodes are their symbols). */
export function sectorId(sector: string): string {
  return `sector:${sector}`;
}

/** The % change today of companies, weighted by market cap over those with a quote; null when none has one. */
export function weightedChange(
  companies: readonly MapCompany[],
  quotes: Readonly<Record<string, MapQuote>>,
): number | null {
  let weight = 0;
  let sum = 0;
  for (const company of companies) {
    const quote = quotes[company.symbol];
    if (!quote) continue;
    weight += company.marketcap;
    sum += company.marketcap * quote.changepct;
  }
  return weight > 0 ? sum / weight : null;
}

/** A price with 2 decimals and thousands separators (`7,483.75`, never the display rule's `0.01M`). */
export { formatPrice };

/** The red-to-green scale, neutral grey at 0. */
export const CHANGE_COLORSCALE: [number, string][] = [
  [0, '#c62828'],
  [0.35, '#8e3b3b'],
  [0.5, '#414554'],
  [0.65, '#2f6b3f'],
  [1, '#1f9d46'],
];

/**
 * The Plotly figure of the map with the quotes known: one `treemap` trace whose nodes are the market, its
 * sectors and their companies (ids `market`, `sector:<name>`, symbols), sized by market cap (`branchvalues:
 * total`), coloured by % change. Each node's customdata is `[symbol, name, change text, price, sector, market
 * cap, change]`, the symbol empty on the market and sector nodes.
 */
export function marketMapFigure(
  companies: readonly MapCompany[],
  quotes: Readonly<Record<string, MapQuote>>,
): { data: Data[]; layout: Partial<Layout> } {
  const mapped = companies.filter((c) => c.marketcap > 0);
  const sectors = [...new Set(mapped.map((c) => c.sector))];
  const total = mapped.reduce((sum, c) => sum + c.marketcap, 0);
  const market = weightedChange(mapped, quotes);
  const ids = [MARKET_ID];
  const labels = ['Market'];
  const parents = [''];
  const values = [total];
  const changes = [market ?? 0];
  const customdata: (string | number)[][] = [
    ['', 'Market', formatSignedPercent(market), '', '', formatNumber(total), market ?? 0],
  ];
  for (const sector of sectors) {
    const members = mapped.filter((c) => c.sector === sector);
    const change = weightedChange(members, quotes);
    const cap = members.reduce((sum, c) => sum + c.marketcap, 0);
    ids.push(sectorId(sector));
    labels.push(sector);
    parents.push(MARKET_ID);
    values.push(cap);
    changes.push(change ?? 0);
    customdata.push(['', sector, formatSignedPercent(change), '', sector, formatNumber(cap), change ?? 0]);
  }
  for (const company of mapped) {
    const quote = quotes[company.symbol];
    ids.push(company.symbol);
    labels.push(company.symbol);
    parents.push(sectorId(company.sector));
    values.push(company.marketcap);
    changes.push(quote?.changepct ?? 0);
    customdata.push([
      company.symbol,
      company.name,
      formatSignedPercent(quote?.changepct),
      quote ? formatPrice(quote.price) : 'n/a',
      company.sector,
      formatNumber(company.marketcap),
      quote?.changepct ?? 0,
    ]);
  }
  const ticks = [-COLOR_LIMIT, -COLOR_LIMIT / 2, 0, COLOR_LIMIT / 2, COLOR_LIMIT];
  // The plotly.js types lack the treemap keys (tiling, pathbar, branchvalues), hence the cast.
  const data = [
    {
      type: 'treemap',
      ids,
      labels,
      parents,
      values,
      branchvalues: 'total',
      customdata,
      texttemplate: '<b>%{label}</b><br>%{customdata[2]}',
      textposition: 'middle center',
      hovertemplate:
        '<b>%{label}</b> %{customdata[1]}<br>%{customdata[4]}<br>Price %{customdata[3]}' +
        '<br>Today %{customdata[2]}<br>Market cap %{customdata[5]}<extra></extra>',
      tiling: { packing: 'squarify', pad: 1 },
      pathbar: { visible: true, thickness: 20 },
      marker: {
        colors: changes,
        colorscale: CHANGE_COLORSCALE,
        cmin: -COLOR_LIMIT,
        cmax: COLOR_LIMIT,
        cmid: 0,
        line: { color: '#1b2430', width: 0.6 },
        pad: { t: 18, l: 2, r: 2, b: 2 },
        showscale: true,
        colorbar: {
          title: { text: 'Today', side: 'top' },
          ticksuffix: '%',
          thickness: 12,
          len: 0.8,
          tickvals: ticks,
          ticktext: ticks.map((tick) => formatSignedPercent(tick)),
        },
      },
    },
  ] as unknown as Data[];
  const layout: Partial<Layout> = {
    margin: { l: 4, r: 4, t: 4, b: 4 },
    hovermode: 'closest',
    // Labels too small to read in their tile are hidden (a layout key the plotly.js types lack).
    ...{ uniformtext: { mode: 'hide', minsize: 8 } },
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
