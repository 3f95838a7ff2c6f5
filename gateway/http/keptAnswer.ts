/**
 * GET answers kept as the JSON text they are sent as. A read-model route whose answer depends only on what it
 * reads answers a repeated request from the answer cache of `readModelCache.ts` (forgotten by the commit that
 * changes what it was derived from): no read, no `JSON.parse` of the cached document, no route work and no
 * `JSON.stringify`, which were most of the gateway's own cost of such a request (see the gateway README).
 * Without an answer cache (a gateway that does not run the projections) the answer is derived every time.
 */
import { formatPosition, type LogPosition } from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { readDocument, type Projection } from '../../projections/projection.ts';
import { answerCacheOf, type AnswerSources, type KeptAnswer } from '../readModelCache.ts';

/** An answer already written as JSON text: the route handler sends it as it is. */
export class JsonText implements KeptAnswer {
  /** The text's length in UTF-8 bytes (its `Content-Length`), counted once. */
  readonly bytes: number;

  constructor(
    /** The answer's JSON text. */
    readonly text: string,
    /** The formatted log position the answer reflects (the `X-Read-Model-Position` header), if any. */
    readonly position: string | undefined,
  ) {
    this.bytes = Buffer.byteLength(text);
  }
}

/** What a route derives: the answer and the log position it reflects. */
export interface DerivedAnswer {
  readonly body: unknown;
  readonly position?: LogPosition | undefined;
}

async function derived(compute: () => Promise<DerivedAnswer>): Promise<JsonText> {
  const { body, position } = await compute();
  return new JsonText(JSON.stringify(body), position && formatPosition(position));
}

/**
 * The answer kept under `key` (at once, without a promise), else `compute`'s, kept until a commit touches one
 * of `sources`. `key` must name everything the answer depends on besides the sources (user, parameters).
 */
export function keptAnswer(
  readModels: ReadModelStore,
  key: string,
  sources: AnswerSources,
  compute: () => Promise<DerivedAnswer>,
): JsonText | Promise<JsonText> {
  const answers = answerCacheOf(readModels);
  if (!answers) return derived(compute);
  // Every answer kept through here is a JsonText (`derived`), so it is recalled as one.
  const kept = answers.recall(key) as JsonText | undefined;
  if (kept) return kept;
  return answers.derive(key, sources, () => derived(compute)) as Promise<JsonText>;
}

/**
 * The answer made of one document of a projection (`answer` of its value, undefined when there is none), kept
 * under the projection's name and `key` until a commit writes that document.
 */
export function keptDocumentAnswer<D>(
  readModels: ReadModelStore,
  projection: Pick<Projection<D>, 'name'>,
  key: string,
  answer: (value: D | undefined) => unknown,
): JsonText | Promise<JsonText> {
  return keptAnswer(readModels, `${projection.name}\u0000${key}`, { documents: [[projection.name, key]] }, async () => {
    const doc = await readDocument<D>(readModels, projection, key);
    return { body: answer(doc?.value), position: doc?.position };
  });
}
