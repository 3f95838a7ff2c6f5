/**
 * No request of any shape is answered with a server error: every operation of the API reference
 * (`/api/docs`), sent requests made from its own description (path parameters, query, body) with hostile values
 * in every place, signed in as a user with every role or signed out, answers below 500. The requests go to a
 * running gateway over HTTP, through the same middleware, routes, commands and stores a browser's do.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { ROLES } from '../../domain/accounts/accounts.ts';
import { integer } from '../../platform/config.ts';
import { grantRole } from '../auth/grant.ts';
import { startTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';

const FEED_TOKEN = 'feed-token-for-any-request-test';
/**
 * Requests per operation and fast-check's seed (fixed: the same requests on every run), read by the test: a longer
 * search than the default's is `ANY_REQUEST_RUNS=2000 ANY_REQUEST_SEED=7 npm test -- gateway/http/anyRequest.test.ts`.
 */
function searchSize(): { readonly runs: number; readonly seed: number } {
  const env = process.env;
  return {
    runs: integer(env, 'ANY_REQUEST_RUNS', 40, 1, Number.MAX_SAFE_INTEGER, 'an integer of at least 1'),
    seed: integer(env, 'ANY_REQUEST_SEED', 20261204, 0, Number.MAX_SAFE_INTEGER, 'an integer of at least 0'),
  };
}

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly schema?: Schema;
}

interface Schema {
  readonly type?: string | readonly string[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly properties?: Record<string, Schema>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly allOf?: readonly Schema[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
}

interface Operation {
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content: Record<string, { readonly schema?: Schema }> };
}

/** Strings that have broken parsers elsewhere: encodings, sizes, prototypes, numbers out of range. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '..',
  '../../etc/passwd',
  '%00',
  '%ZZ',
  '\u0000',
  '\uD800',
  '😀',
  'a'.repeat(5000),
  '-1',
  '0',
  '1e400',
  '-0',
  'NaN',
  'Infinity',
  '9007199254740993',
  'true',
  'null',
  '__proto__',
  'constructor',
  'toString',
  '[]',
  '{}',
  'aapl',
  'BRK.B',
  '2024-02-30',
  '1900-01-01',
  '9999-12-31',
  '2025-02-24T14:30:00Z',
  '1/1',
  'sma:50',
] as const;

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

/** Any JSON value, biased towards the odd ones: deep, large, of the wrong type. */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hostileString,
  fc.constantFrom(null, true, 0, -1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 0.1, [], {}, [[[[[[]]]]]], {
    __proto__: { admin: true },
  }),
);

/** Symbols of the test market (read from `/api/universe` first), and one it does not list. */
let knownSymbols: readonly string[] = ['ZZZZ'];

/** Values a field of this name holds in the test market (its symbols, its days), tried besides any value. */
function knownValuesOf(name: string): readonly string[] {
  if (/^(symbol|stock|symbols|stks)$/i.test(name)) return knownSymbols;
  if (/date|day|from|to|at$/i.test(name)) return ['2025-02-24', '2025-02-21', '2024-05-01', '2025-02-24T15:00:00Z'];
  return [];
}

/** A value the schema allows: its constant, a member of its enum, a string of its pattern, a number in range. */
function conforming(schema: Schema | undefined, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 6) return hostileJson;
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches && branches.length > 0) return fc.oneof(...branches.map((b) => conforming(b, name, depth + 1)));
  const types: readonly string[] =
    schema.type === undefined ? [] : typeof schema.type === 'string' ? [schema.type] : schema.type;
  if (types.length > 1) return fc.oneof(...types.map((type) => conforming({ ...schema, type }, name, depth + 1)));
  const known = knownValuesOf(name);
  switch (types[0]) {
    case 'string': {
      const patterns = [schema.pattern, ...(schema.allOf ?? []).map((s) => s.pattern)].filter(
        (p): p is string => p !== undefined,
      );
      const fits = (v: string): boolean =>
        v.length >= (schema.minLength ?? 0) &&
        v.length <= (schema.maxLength ?? Infinity) &&
        patterns.every((p) => new RegExp(p, 'u').test(v));
      const made =
        patterns.length > 0
          ? fc.stringMatching(new RegExp(patterns.at(-1)!, 'u')).filter(fits)
          : fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) });
      const knownFit = known.filter(fits);
      return knownFit.length > 0 ? fc.oneof(fc.constantFrom(...knownFit), made) : made;
    }
    case 'number':
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1e-6 : -1e6);
      const max = schema.maximum ?? 1e6;
      return types[0] === 'integer'
        ? fc.integer({ min: Math.ceil(Math.max(min, -1e9)), max: Math.floor(Math.min(max, 1e9)) })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(conforming(schema.items, name, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      return fc.record(Object.fromEntries(properties.map(([key, s]) => [key, conforming(s, key, depth + 1)])), {
        requiredKeys: (schema.required ?? []).filter((key) => key in (schema.properties ?? {})),
      });
    }
    default:
      return hostileJson;
  }
}

/** Every place in a JSON value: the path of keys (or indexes) to each member, the value itself first. */
function placesOf(value: unknown, at: readonly (string | number)[] = []): (readonly (string | number)[])[] {
  const here = [at];
  if (Array.isArray(value)) return here.concat(...value.map((v, i) => placesOf(v, [...at, i])));
  if (value !== null && typeof value === 'object') {
    return here.concat(...Object.entries(value).map(([k, v]) => placesOf(v, [...at, k])));
  }
  return here;
}

/** `value` with the member at `path` replaced by `by` (removed when `by` is undefined). */
function replaced(value: unknown, path: readonly (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy: unknown[] = [...(value as unknown[])];
    if (by === undefined && rest.length === 0) copy.splice(head as number, 1);
    else copy[head as number] = replaced(copy[head as number], rest, by);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  if (by === undefined && rest.length === 0) delete copy[head as string];
  else copy[head as string] = replaced(copy[head as string], rest, by);
  return copy;
}

/** `values`, each as it is, or with a single member (at any depth) replaced by a hostile value or removed. */
function mutated(values: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(values, fc.constantFrom('as is', 'replace', 'remove'), fc.nat(), hostileJson)
    .map(([value, how, which, hostile]) => {
      if (how === 'as is') return value;
      const places = placesOf(value);
      const place = places[which % places.length]!;
      return replaced(value, place, how === 'remove' && place.length > 0 ? undefined : hostile);
    });
}

/**
 * Bodies the routes that record something accept (as their own tests send them): mutated one member at a time,
 * they pass most of the validation and reach the rules, the stores and the read models behind it.
 */
const RSI_LOW = { label: 'RSI low', query: { type: 'rsi', param: 14, op: '<', val: 30 } };
const WEEKLY_FIT = { symbol: 'AAPL', horizon: 5, model: 'ridge', features: { lagReturns: 3, rsi: true } };
const ACCEPTED_BODIES: Record<string, readonly unknown[]> = {
  'POST /personalize/stockalerts': [
    { symbol: 'AAPL', close: 190, alerttype: 'U' },
    { symbol: 'AAPL', condition: { op: 'entering_channel', lower: 180, upper: 200 }, frequency: 'every_time' },
    { symbol: 'MSFT', condition: { op: 'crossing_up', source: 'price', value: { ref: 'sma:50' } }, expires: null },
    { symbol: 'NVDA', condition: { op: 'moving_up_pct', value: 3, bars: 2 }, frequency: 'once_per_bar' },
  ],
  'POST /personalize/createwatchlist': [['AAPL', 'MSFT']],
  'POST /personalize/sectors': [{ name: 'Chips', symbols: ['NVDA'] }],
  'POST /personalize/userPositions/{symbol}': [{ date: '2024-05-01', close: 170.25, position: 10 }],
  'POST /api/portfolio/transactions': [
    { kind: 'buy', symbol: 'AAPL', date: '2024-05-01', quantity: 10, price: 170 },
    { kind: 'sell', symbol: 'AAPL', date: '2024-06-03', quantity: 4, price: 190 },
    { kind: 'dividend', symbol: 'AAPL', date: '2024-05-16', amount: 2.5 },
  ],
  'POST /personalize/dashboard': [[{ layoutId: 1, compId: [1, 2] }]],
  'POST /personalize/stockalertquery': [{ queryname: 'q', query: [RSI_LOW] }],
  'POST /api/screener/run': [{ query: [RSI_LOW], limit: 50 }],
  'POST /api/prediction/fit': [WEEKLY_FIT],
  'POST /personalize/predictions': [{ name: 'weekly', ...WEEKLY_FIT }],
};

/**
 * One request's body: one the route accepts or one shaped after its schema (a value the schema allows), either
 * mutated (see {@link mutated}); or text that is not JSON; or none.
 */
function bodyFor(key: string, operation: Operation): fc.Arbitrary<{ raw?: string; body?: unknown } | null> {
  const schema = operation.requestBody?.content['application/json']?.schema;
  const accepted = ACCEPTED_BODIES[key] ?? [];
  const raw = fc.constantFrom('{"a":', '[', '\u0000', 'null', '1e400', '{"__proto__":{"x":1}}', '['.repeat(2000));
  const bodies: fc.WeightedArbitrary<{ raw?: string; body?: unknown } | null>[] = [
    { weight: 4, arbitrary: mutated(conforming(schema)).map((body) => ({ body })) },
    { weight: 1, arbitrary: raw.map((text) => ({ raw: text })) },
    { weight: 1, arbitrary: fc.constant(null) },
  ];
  if (accepted.length > 0) {
    bodies.push({ weight: 6, arbitrary: mutated(fc.constantFrom(...accepted)).map((body) => ({ body })) });
  }
  return fc.oneof(...bodies);
}

/** A value as a browser puts it in a URL (a lone surrogate as U+FFFD, as browsers send it). */
function encode(value: string): string {
  return encodeURIComponent(
    value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  );
}

/** A parameter's value as text: one its schema allows, or a hostile one. */
function parameterValue(parameter: Parameter): fc.Arbitrary<string> {
  const allowed = conforming(parameter.schema, parameter.name).map((v) =>
    typeof v === 'string' ? v : (JSON.stringify(v) ?? ''),
  );
  return fc.oneof({ weight: 3, arbitrary: allowed }, { weight: 2, arbitrary: hostileString });
}

/** The query string of a request: each declared parameter absent, once, or repeated, and sometimes a stranger. */
function queryFor(parameters: readonly Parameter[]): fc.Arbitrary<string> {
  const declared = parameters.filter((p) => p.in === 'query');
  const pairs = fc.tuple(
    ...declared.map((p) =>
      fc.array(parameterValue(p), { maxLength: 2 }).map((values) => values.map((v) => [p.name, v] as const)),
    ),
    fc.array(fc.tuple(hostileString, hostileString), { maxLength: 1 }),
  );
  return pairs.map((groups) => {
    const all = groups.flat();
    return all.length === 0 ? '' : `?${all.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`;
  });
}

/** A path parameter: a value its schema allows, a hostile one, or (`seen`) one of the ids answers held. */
type PathValue = string | { readonly seen: number };

/** The values of an operation's `{param}`s, in the order of the template. */
function pathValuesFor(template: string, parameters: readonly Parameter[]): fc.Arbitrary<PathValue[]> {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  return fc.tuple(
    ...names.map((name): fc.Arbitrary<PathValue> => {
      const declared = parameters.find((p) => p.in === 'path' && p.name === name);
      const own = declared ? parameterValue(declared) : hostileString;
      return /id$/i.test(name)
        ? fc.oneof(
            own,
            fc.nat().map((seen) => ({ seen })),
          )
        : own;
    }),
  );
}

/** The template with its parameters' values, encoded; a `seen` one picks among `ids` (a value of its own if none). */
function pathOf(template: string, values: readonly PathValue[], ids: readonly string[]): string {
  let i = 0;
  return template.replace(/\{[^}]+\}/g, () => {
    const value = values[i++]!;
    const text = typeof value === 'string' ? value : (ids[value.seen % Math.max(1, ids.length)] ?? 'none');
    return encode(text) || '%20';
  });
}

/** The string ids an answer holds (`id`, `alertId`, … at any depth), which later requests use in their paths. */
function idsIn(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) idsIn(v, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (/id$/i.test(key) && typeof v === 'string' && v.length <= 100) into.add(v);
      else idsIn(v, into);
    }
  }
}

describe('any request', function () {
  let gw: TestGateway;
  let user: TestClient & { readonly username: string };
  let operations: [method: string, path: string, operation: Operation][];

  before(async function () {
    // Wrong passwords are among the requests: the sign-in limits (tested on their own) would hold the user back.
    gw = await startTestGateway({
      env: { FEED_TOKEN, SIGNIN_FREE_FAILURES: '1000', SIGNIN_FAILURES_PER_ADDRESS: '1000000' },
    });
    user = await gw.user('any');
    for (const role of ROLES) if (role !== 'user') await grantRole(gw.running.system.events, user.username, role);
    await signIn();
    const universe = (await user.getOk<{ symbol: string }[]>('/api/universe?limit=8')).map((row) => row.symbol);
    knownSymbols = [...universe, 'ZZZZ'];
    const doc = (await gw.client().get('/api/docs')).body as { paths: Record<string, Record<string, Operation>> };
    operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [method.toUpperCase(), path, operation] as const),
    ) as typeof operations;
  });
  after(async function () {
    await gw.close();
  });

  /** Signs the user in again (a request may have ended its session: sign-out, another sign-in's limits). */
  async function signIn(): Promise<void> {
    const login = await user.post('/api/login', { username: user.username, password: 'correct horse' });
    expect(login.status, login.text).to.equal(200);
  }

  it('answers every operation of the reference below 500, whatever its path, query and body', async function () {
    const { runs, seed } = searchSize();
    // A request takes 1 to 2 ms here; 50 ms each leaves room for a slower machine.
    this.timeout(Math.max(600_000, runs * operations.length * 50));
    expect(operations.length, 'operations in /api/docs').to.be.greaterThan(100);
    const anonymous = gw.client();
    // The ids of what the requests created (alerts, channels, sectors, …): the operations on one come later.
    const ids = new Set<string>();
    for (const [method, template, operation] of operations) {
      const request = fc.record({
        path: pathValuesFor(template, operation.parameters ?? []),
        query: queryFor(operation.parameters ?? []),
        body: method === 'GET' ? fc.constant(null) : bodyFor(`${method} ${template}`, operation),
        signedIn: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
        feedToken: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ path: values, query, body, signedIn, feedToken }) => {
          const path = pathOf(template, values, [...ids]);
          const client = signedIn ? user : anonymous;
          const headers: Record<string, string> = feedToken ? { authorization: `Bearer ${FEED_TOKEN}` } : {};
          if (body?.raw !== undefined) headers['content-type'] = 'application/json';
          const res = await client.request(method, `${path}${query}`, {
            ...(body?.raw !== undefined ? { raw: body.raw } : body !== null ? { body: body.body } : {}),
            headers,
          });
          expect(
            res.status,
            `${method} ${path}${query} ${JSON.stringify(body)?.slice(0, 300)}: ${res.text.slice(0, 300)}`,
          ).to.be.within(200, 499);
          if (signedIn && res.status === 401) await signIn();
          if (res.status < 300) idsIn(res.body, ids);
        }),
        { seed, numRuns: runs, endOnFailure: true, includeErrorInReport: true },
      );
    }
  });
});
