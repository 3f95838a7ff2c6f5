/**
 * Compression of dynamic answers (JSON of the API, error bodies) of at least 1 kB with Brotli or gzip, through
 * koa-compress. The built web app's files are compressed at build time and sent as they are (see `static.ts`).
 */
import compress from 'koa-compress';
import type { Context, Middleware } from 'koa';
import { constants } from 'node:zlib';

/** Smaller answers are sent as they are: compression would save less than a packet. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/** Encodings this middleware answers with; a request accepting none of them is passed through untouched. */
const ENCODED = /\b(?:br|gzip)\b/i;

/**
 * Compresses answers of at least {@link COMPRESS_THRESHOLD_BYTES} for requests that accept Brotli (quality 4,
 * fast enough per request) or gzip. A request without such an `Accept-Encoding` (most API clients, the
 * benchmarks) skips it entirely, so it costs them nothing.
 */
export function compression(): Middleware {
  const compressing = compressAnswers();
  return (ctx, next) => (acceptsCompression(ctx) ? (compressing(ctx, next) as Promise<void>) : next());
}

/** Whether the request accepts an encoding {@link compressAnswers} answers with. */
export function acceptsCompression(ctx: Context): boolean {
  return ENCODED.test(ctx.get('accept-encoding'));
}

/** The compressing middleware of {@link compression}, for requests that {@link acceptsCompression}. */
export function compressAnswers(): Middleware {
  return compress({
    threshold: COMPRESS_THRESHOLD_BYTES,
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    gzip: { level: 6 },
    deflate: false,
  });
}
