/**
 * Daily bars from Alpaca's market data REST API (`GET /v2/stocks/bars`, timeframe `1Day`): every page of the
 * answer is fetched (`next_page_token`), a 429 is retried after the wait the provider asks for (`Retry-After`,
 * else `X-RateLimit-Reset`), and each page is validated whole; a refusal names the page, the row and the field.
 */
import { z } from 'zod';
import type { DailyBar } from '../../domain/market/types.ts';
import { newYorkTime } from '../ticks/marketClock.ts';
import { checkBars } from './store.ts';

/** The Alpaca market data REST API, as the bars client needs it. */
export interface AlpacaDataOptions {
  /** API key id (`APCA-API-KEY-ID`). */
  readonly keyId: string;
  /** API secret key (`APCA-API-SECRET-KEY`). */
  readonly secretKey: string;
  /** The API's base URL (default {@link ALPACA_DATA_URL}). */
  readonly baseUrl?: string;
  /** `iex` (free plan) or `sip` (every US exchange, paid plan); default `iex`. */
  readonly feed?: 'iex' | 'sip';
}

/** The market data API's base URL. */
export const ALPACA_DATA_URL = 'https://data.alpaca.markets';

/** Bars asked per page (the API's maximum). */
const PAGE_LIMIT = 10_000;
/** 429 answers retried in a row before giving up. */
const MAX_RETRIES = 5;
/** Longest wait asked for by a 429 that is honoured (ms); a longer one is cut to it. */
const MAX_WAIT_MS = 60_000;

/** A request the provider refused or an answer that is not valid; the message names what and where. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
}

/** One daily bar as the API answers it. */
const barSchema = z.object({
  t: z.iso.datetime({ offset: true, error: 'must be an RFC 3339 time' }),
  o: z.number({ error: 'must be a number' }).positive({ error: 'must be a positive number' }),
  h: z.number({ error: 'must be a number' }).positive({ error: 'must be a positive number' }),
  l: z.number({ error: 'must be a number' }).positive({ error: 'must be a positive number' }),
  c: z.number({ error: 'must be a number' }).positive({ error: 'must be a positive number' }),
  v: z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }).nonnegative({
    error: 'must not be negative',
  }),
  n: z.number().int().nonnegative().optional(),
  vw: z.number().nonnegative().optional(),
});

/** One page of `GET /v2/stocks/bars`. */
const pageSchema = z.object({
  bars: z.record(z.string(), z.array(barSchema)).nullable(),
  next_page_token: z.string().nullable().optional(),
});

/** What {@link fetchAlpacaBars} is asked. */
export interface BarsRequest {
  /** The symbols, upper case. */
  readonly symbols: readonly string[];
  /** First day, `YYYY-MM-DD`. */
  readonly from: string;
  /** Last day, `YYYY-MM-DD` (default: up to now). */
  readonly to?: string;
  /** Called after each page with the bars received so far and the number expected (an estimate). */
  readonly onProgress?: (received: number, expected: number) => void;
  /** The clock, in ms (default `Date.now`): the wait a 429 asks for with `X-RateLimit-Reset`. */
  readonly now?: () => number;
}

/** The wait (ms) a 429 answer asks for. */
function retryWait(res: Response, now: number): number {
  const after = Number(res.headers.get('retry-after'));
  if (res.headers.has('retry-after') && Number.isFinite(after)) return Math.min(MAX_WAIT_MS, Math.max(0, after * 1000));
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  if (res.headers.has('x-ratelimit-reset') && Number.isFinite(reset)) {
    return Math.min(MAX_WAIT_MS, Math.max(0, reset * 1000 - now));
  }
  return 1000;
}

/** The message of a zod refusal: the first issue's path (`bars.AAPL[3].h`) and message. */
function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'not a valid answer';
  let where = '';
  for (const key of issue.path)
    where += typeof key === 'number' ? `[${key}]` : where === '' ? String(key) : `.${String(key)}`;
  return `${where === '' ? 'the answer' : where}: ${issue.message}`;
}

/**
 * Fetches the daily bars of `symbols` from `from` (to `to`) on every page, validated, by symbol in date order;
 * throws a {@link ProviderError} naming the page, row and field of the first bad bar, or the refused request.
 */
export async function fetchAlpacaBars(api: AlpacaDataOptions, request: BarsRequest): Promise<Map<string, DailyBar[]>> {
  const now = request.now ?? Date.now;
  const out = new Map<string, DailyBar[]>(request.symbols.map((s) => [s, []]));
  const days = Math.max(1, Math.ceil((now() - Date.parse(`${request.from}T00:00:00Z`)) / 86_400_000));
  const expected = Math.max(1, Math.round((request.symbols.length * days * 252) / 365));
  let received = 0;
  const params: Record<string, string> = { timeframe: '1Day', start: request.from };
  if (request.to !== undefined) params.end = request.to;
  await eachPage(
    api,
    request.symbols,
    params,
    now,
    (page, symbol, rows) => {
      const list = out.get(symbol)!;
      const bars = rows.map((row) => ({
        date: newYorkTime(Date.parse(row.t)).date,
        open: row.o,
        high: row.h,
        low: row.l,
        close: row.c,
        volume: row.v,
      }));
      try {
        checkBars(symbol, bars, list.at(-1)?.date);
      } catch (error) {
        throw new ProviderError(
          `page ${page}: bars.${(error as Error).message.replace(/ bar (\d+)/, (_, n) => `[${Number(n) - 1}]`)}`,
        );
      }
      list.push(...bars);
      received += bars.length;
    },
    () => request.onProgress?.(Math.min(received, expected), Math.max(received, expected)),
  );
  request.onProgress?.(received, received);
  return out;
}

/** One minute bar: its minute's start (ms since the epoch), prices in dollars and the minute's volume. */
export interface MinuteBar {
  readonly t: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
}

/** What {@link fetchAlpacaMinuteBars} is asked. */
export interface MinuteBarsRequest {
  /** The symbols, upper case. */
  readonly symbols: readonly string[];
  /** The first minute (ms since the epoch) and the end (excluded). */
  readonly start: number;
  readonly end: number;
  /** The clock, in ms (default `Date.now`): the wait a 429 asks for with `X-RateLimit-Reset`. */
  readonly now?: () => number;
}

/**
 * Fetches the one-minute bars (timeframe `1Min`) of `symbols` over [`start`, `end`) on every page, validated,
 * by symbol in time order; a bar outside the span, out of order, or whose low and high do not hold its open and
 * close throws a {@link ProviderError} naming the page, row and field.
 */
export async function fetchAlpacaMinuteBars(
  api: AlpacaDataOptions,
  request: MinuteBarsRequest,
): Promise<Map<string, MinuteBar[]>> {
  const out = new Map<string, MinuteBar[]>(request.symbols.map((s) => [s, []]));
  const params = {
    timeframe: '1Min',
    start: new Date(request.start).toISOString(),
    end: new Date(request.end).toISOString(),
  };
  await eachPage(api, request.symbols, params, request.now ?? Date.now, (page, symbol, rows) => {
    const list = out.get(symbol)!;
    rows.forEach((row, i) => {
      const where = `page ${page}: bars.${symbol}[${i}]`;
      const t = Date.parse(row.t);
      if (t < request.start || t >= request.end)
        throw new ProviderError(`${where}.t: ${row.t} is outside the span asked`);
      if (list.length > 0 && t <= list.at(-1)!.t)
        throw new ProviderError(`${where}.t: ${row.t} is not after the bar before`);
      if (row.l > Math.min(row.o, row.c) || row.h < Math.max(row.o, row.c)) {
        throw new ProviderError(
          `${where}: low ${row.l} and high ${row.h} do not hold open ${row.o} and close ${row.c}`,
        );
      }
      list.push({ t, open: row.o, high: row.h, low: row.l, close: row.c, volume: row.v });
    });
  });
  return out;
}

/**
 * GETs `/v2/stocks/bars` with `params` for `symbols` on every page (`next_page_token`), each validated whole,
 * and hands each symbol's rows of each page to `take`, then calls `afterPage`; a symbol not asked for throws.
 */
async function eachPage(
  api: AlpacaDataOptions,
  symbols: readonly string[],
  params: Readonly<Record<string, string>>,
  now: () => number,
  take: (page: number, symbol: string, rows: readonly z.infer<typeof barSchema>[]) => void,
  afterPage?: () => void,
): Promise<void> {
  const base = (api.baseUrl ?? ALPACA_DATA_URL).replace(/\/+$/, '');
  const asked = new Set(symbols);
  let token: string | null | undefined;
  let page = 0;
  do {
    page += 1;
    const url = new URL(`${base}/v2/stocks/bars`);
    url.searchParams.set('symbols', symbols.join(','));
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    url.searchParams.set('limit', String(PAGE_LIMIT));
    url.searchParams.set('adjustment', 'raw');
    url.searchParams.set('feed', api.feed ?? 'iex');
    if (token) url.searchParams.set('page_token', token);
    const body = await getJson(url, api, page, now);
    const parsed = pageSchema.safeParse(body);
    if (!parsed.success) throw new ProviderError(`page ${page}: ${issueText(parsed.error)}`);
    for (const [symbol, rows] of Object.entries(parsed.data.bars ?? {})) {
      if (!asked.has(symbol)) throw new ProviderError(`page ${page}: bars.${symbol}: a symbol that was not asked for`);
      take(page, symbol, rows);
    }
    afterPage?.();
    token = parsed.data.next_page_token;
  } while (token);
}

/** GETs a page as JSON, waiting and retrying on a 429; a refused request or a non-JSON answer throws. */
async function getJson(url: URL, api: AlpacaDataOptions, page: number, now: () => number): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { 'APCA-API-KEY-ID': api.keyId, 'APCA-API-SECRET-KEY': api.secretKey, accept: 'application/json' },
      });
    } catch (error) {
      throw new ProviderError(`page ${page}: ${url.origin} did not answer (${(error as Error).message})`);
    }
    if (res.status === 429 && attempt < MAX_RETRIES) {
      await res.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, retryWait(res, now())));
      continue;
    }
    const text = await res.text();
    if (!res.ok) {
      const reason = /"message"\s*:\s*"([^"]*)"/.exec(text)?.[1] ?? text.slice(0, 200);
      const hint = res.status === 401 || res.status === 403 ? ' (check ALPACA_KEY_ID and ALPACA_SECRET_KEY)' : '';
      throw new ProviderError(`page ${page}: the provider answered ${res.status}: ${reason}${hint}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ProviderError(`page ${page}: the answer is not JSON`);
    }
  }
}
