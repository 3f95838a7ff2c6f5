/**
 * Feed ingestion (`POST /api/feed/ticks`, api.md): an external feed handler pushes ticks with the bearer
 * `FEED_TOKEN`; they go on the tick bus to the engine. Without a token the route does not exist (404).
 *
 * It runs in the front of every request (`http/front.ts`) before the general JSON body reader, because a batch of up to
 * {@link FEED_MAX_TICKS} ticks is larger than the general body limit.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { FEED_MAX_TICKS, feedApi, feedBody, isPlainFeedBody, type FeedTick } from '../../domain/contract/feed.ts';
import type { Tick, TickBus } from '../../platform/bus/port.ts';
import { TICK_FUTURE_TOLERANCE_MS } from '../../engine/ticks/tick.ts';
import { ApiError } from '../errors.ts';
import { refuseEncodedBody } from '../http/body.ts';
import { refuseDeepJson } from '../http/depth.ts';
import { validationError } from '../http/route.ts';
import type { SymbolDirectory } from '../http/schemas.ts';

/** The path of the feed route. */
export const FEED_PATH = feedApi.postFeedTicks.path;

export { FEED_MAX_TICKS };

/** Largest feed request body, in bytes (5,000 ticks with long fields fit). */
export const FEED_MAX_BODY_BYTES = 1024 * 1024;

/** The latest time a `Date` can hold, ms since the epoch. */
const LATEST_DATE_MS = 8.64e15;

/** What the feed route needs: its token and where ticks go. */
export interface FeedDeps {
  /** The bearer token callers must present. */
  readonly token: string;
  /** Where accepted ticks are published. */
  readonly bus: Pick<TickBus, 'publish'>;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

async function readBody(stream: AsyncIterable<Buffer>, declared: number): Promise<string> {
  const tooLarge = (): ApiError =>
    new ApiError(413, 'payload_too_large', `body: larger than ${FEED_MAX_BODY_BYTES} bytes`);
  if (declared > FEED_MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > FEED_MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The body as the contract's schema answers it (a body `isPlainFeedBody` passed over), or its refusal. */
function schemaParsed(raw: unknown): FeedTick[] {
  const parsed = feedBody.safeParse(raw);
  if (!parsed.success) throw validationError('body', parsed.error);
  return parsed.data;
}

/**
 * The feed route, for a request to {@link FEED_PATH} of any method: bearer token, then the body (JSON,
 * validated naming the field, known symbols only), then the ticks on the bus; answers 202 `{accepted}`. Null
 * when the route is off (no `feed`).
 */
export function feedRoute(
  feed: FeedDeps | undefined,
  symbols: SymbolDirectory,
  now = Date.now,
): ((ctx: Context) => Promise<void>) | null {
  if (!feed) return null;
  const expected = digest(`Bearer ${feed.token}`);
  return async (ctx: Context): Promise<void> => {
    if (ctx.method !== 'POST') throw new ApiError(405, 'method_not_allowed', 'method not allowed on this route');
    if (!timingSafeEqual(digest(ctx.get('authorization')), expected)) {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw new ApiError(401, 'unauthorized', 'Authorization: a valid Bearer feed token is required');
    }
    refuseEncodedBody(ctx);
    const text = await readBody(ctx.req as AsyncIterable<Buffer>, Number(ctx.get('content-length') || '0'));
    if (ctx.is('application/json') !== 'application/json') {
      throw new ApiError(415, 'unsupported_media_type', 'body: must be JSON (Content-Type: application/json)');
    }
    refuseDeepJson(text);
    let raw: unknown;
    try {
      raw = JSON.parse(text) as unknown;
    } catch {
      throw new ApiError(400, 'bad_request', 'body: not valid JSON');
    }
    const body = isPlainFeedBody(raw) ? raw : schemaParsed(raw);
    const at = now();
    const ticks: Tick[] = body.map((t, i) => {
      if (!symbols.has(t.symbol))
        throw new ApiError(400, 'unknown_symbol', `body[${i}].symbol: unknown symbol ${t.symbol}`);
      // A trade stamped ahead of the clock has not happened yet: its minute would hold every later tick of the
      // session, and the quote would show its time.
      if (t.ts !== undefined && t.ts > at + TICK_FUTURE_TOLERANCE_MS) {
        const ahead = Math.round((t.ts - at) / 1000);
        // A time past the last a date can hold (year 275760) is shown as the number sent.
        const when = t.ts <= LATEST_DATE_MS ? new Date(t.ts).toISOString() : String(t.ts);
        throw new ApiError(
          400,
          'bad_request',
          `body[${i}].ts: ${when} is ${ahead.toLocaleString('en-US')} s ahead of the server's clock; ` +
            `at most ${TICK_FUTURE_TOLERANCE_MS / 1000} s`,
        );
      }
      return { symbol: t.symbol, price: t.price, size: t.size ?? 0, ts: t.ts ?? at };
    });
    await feed.bus.publish(ticks);
    ctx.status = 202;
    ctx.body = { accepted: ticks.length };
  };
}
