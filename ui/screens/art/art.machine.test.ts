import { expect } from 'chai';
import { SimulatedClock, createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { Quote } from '../../../domain/market/types.ts';
import {
  POLL_MS,
  artMachine,
  sizeText,
  snapshotImagePath,
  type ArtEvent,
  type MapExport,
  type Snapshot,
} from './art.machine.ts';
import { LIVE_SYMBOLS_MAX, type MapCompany } from './treemap.ts';

const SECTORS = ['Information Technology', 'Financials', 'Energy'];

/** 210 companies, the first the largest, so 200 stream live and 10 are polled. */
const COMPANIES: MapCompany[] = Array.from({ length: 210 }, (_, i) => ({
  symbol: `S${i}`,
  name: `Company ${i}`,
  sector: SECTORS[i % 3]!,
  marketcap: (300 - i) * 1e9,
}));

function quote(symbol: string, price: number, changepct: number, ts = '2026-01-02T15:00:00.000Z'): Quote {
  return { symbol, price, change: 0, changepct, volume: 0, ts, source: 'simulated' };
}

function snapshot(id: string, title: string): Snapshot {
  return { id, symbol: null, title, createdt: '2026-01-02T15:00:00Z', bytes: 2048, sha256: 'x' };
}

function page(options: { failMap?: boolean; failExport?: string; gallery?: Snapshot[] } = {}) {
  const clock = new SimulatedClock();
  const calls = {
    maps: 0,
    polled: [] as string[][],
    streamed: [] as string[][],
    exports: [] as MapExport[],
    deletes: [] as string[],
    opened: [] as string[],
    notes: [] as string[],
    galleries: 0,
  };
  let push: ((event: ArtEvent) => void) | null = null;
  let changes: ((event: ArtEvent) => void) | null = null;
  let gallery = options.gallery ?? [];
  const actor = createActor(
    artMachine.provide({
      actors: {
        loadMap: fromPromise(async () => {
          calls.maps += 1;
          if (options.failMap) throw new Error('The server could not answer');
          return Promise.resolve({ companies: COMPANIES, quotes: COMPANIES.map((c) => quote(c.symbol, 100, 0)) });
        }),
        loadQuotes: fromPromise<Quote[], { symbols: readonly string[] }>(async ({ input }) => {
          calls.polled.push([...input.symbols]);
          return Promise.resolve(input.symbols.map((s) => quote(s, 90, -10, '2026-01-02T15:00:05.000Z')));
        }),
        liveQuotes: fromCallback<ArtEvent, { symbols: readonly string[] }>(({ sendBack, input }) => {
          calls.streamed.push([...input.symbols]);
          push = sendBack;
        }),
        loadGallery: fromPromise(async () => {
          calls.galleries += 1;
          return Promise.resolve(gallery);
        }),
        exportMap: fromPromise<Snapshot, MapExport>(async ({ input }) => {
          calls.exports.push(input);
          if (options.failExport) throw new Error(options.failExport);
          return Promise.resolve(snapshot('new', input.title));
        }),
        deleteSnapshot: fromPromise<{ id: string }, { id: string }>(async ({ input }) => {
          calls.deletes.push(input.id);
          return Promise.resolve({ id: input.id });
        }),
        liveChanges: fromCallback<ArtEvent>(({ sendBack }) => {
          changes = sendBack;
        }),
      },
      actions: {
        openChart: (_, params: { symbol: string }) => void calls.opened.push(params.symbol),
        notify: (_, params: { text: string }) => void calls.notes.push(params.text),
      },
    }),
    { clock },
  ).start();
  return {
    actor,
    clock,
    calls,
    push: (event: ArtEvent) => push?.(event),
    changed: () => changes?.({ type: 'server.snapshotsChanged' }),
    setGallery: (list: Snapshot[]) => (gallery = list),
  };
}

const fakeGraph = {} as HTMLElement;

describe('art machine', () => {
  it('loads the universe with a snapshot of every quote, streams the largest and polls the rest', async () => {
    const { actor, clock, calls } = page();
    expect(actor.getSnapshot().matches({ map: 'loading' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ map: 'ready' }));
    const { context } = actor.getSnapshot();
    expect(context.companies).to.have.length(210);
    expect(Object.keys(context.quotes)).to.have.length(210);
    expect(calls.streamed).to.have.length(1);
    expect(calls.streamed[0]).to.have.length(LIVE_SYMBOLS_MAX);
    expect(calls.streamed[0]![0]).to.equal('S0');
    expect(context.polled).to.deep.equal(COMPANIES.slice(200).map((c) => c.symbol));
    clock.increment(POLL_MS);
    await waitFor(actor, (s) => s.context.quotes.S209?.changepct === -10);
    expect(calls.polled).to.deep.equal([COMPANIES.slice(200).map((c) => c.symbol)]);
    expect(actor.getSnapshot().context.quotes.S0?.changepct, 'streamed symbols are not polled').to.equal(0);
  });

  it('takes streamed quotes, ignoring one older than the quote held', async () => {
    const { actor, push } = page();
    await waitFor(actor, (s) => s.matches({ map: 'ready' }));
    push({ type: 'server.quotes', quotes: [quote('S1', 105, 5, '2026-01-02T15:00:10.000Z')] });
    push({ type: 'server.quotes', quotes: [quote('S1', 101, 1, '2026-01-02T15:00:09.000Z')] });
    expect(actor.getSnapshot().context.quotes.S1).to.deep.include({ price: 105, changepct: 5 });
  });

  it('opens the chart of a clicked tile, and only of a company on the map', async () => {
    const { actor, calls } = page();
    await waitFor(actor, (s) => s.matches({ map: 'ready' }));
    actor.send({ type: 'user.openTile', symbol: 'S3' });
    actor.send({ type: 'user.openTile', symbol: 'NOPE' });
    expect(calls.opened).to.deep.equal(['S3']);
  });

  it('shows a failed load of the map with its message and retries', async () => {
    const { actor, calls } = page({ failMap: true });
    await waitFor(actor, (s) => s.matches({ map: 'failed' }));
    expect(actor.getSnapshot().context.error).to.equal('The server could not answer');
    actor.send({ type: 'user.retry' });
    expect(actor.getSnapshot().matches({ map: 'loading' })).to.equal(true);
    expect(calls.maps).to.equal(2);
  });

  it('saves the map into the gallery, newest first', async () => {
    const { actor, calls } = page({ gallery: [snapshot('old', 'AAPL 1Y')] });
    await waitFor(actor, (s) => s.matches({ map: 'ready' }) && s.matches({ gallery: 'ready' }));
    actor.send({ type: 'user.saveMap', graph: fakeGraph, title: 'Market map today' });
    expect(actor.getSnapshot().matches({ map: { ready: { export: 'saving' } } })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ map: { ready: { export: 'idle' } } }));
    expect(calls.exports).to.deep.equal([{ graph: fakeGraph, title: 'Market map today' }]);
    expect(actor.getSnapshot().context.gallery.map((s) => s.id)).to.deep.equal(['new', 'old']);
    expect(calls.notes).to.deep.equal(['“Market map today” saved to the gallery']);
  });

  it('keeps the message of a failed save', async () => {
    const { actor } = page({ failExport: 'body.image: the image is 2000000 bytes; at most 1572864 bytes (1.5 MB)' });
    await waitFor(actor, (s) => s.matches({ map: 'ready' }));
    actor.send({ type: 'user.saveMap', graph: fakeGraph, title: 'Too big' });
    await waitFor(actor, (s) => s.context.actionError !== null);
    expect(actor.getSnapshot().context.actionError).to.equal(
      'The map could not be saved: body.image: the image is 2000000 bytes; at most 1572864 bytes (1.5 MB)',
    );
    actor.send({ type: 'user.dismissError' });
    expect(actor.getSnapshot().context.actionError).to.equal(null);
  });

  it('deletes a snapshot and reads the gallery again when it changes elsewhere', async () => {
    const { actor, calls, changed, setGallery } = page({ gallery: [snapshot('a', 'one'), snapshot('b', 'two')] });
    await waitFor(actor, (s) => s.matches({ gallery: 'ready' }));
    actor.send({ type: 'user.deleteSnapshot', id: 'a' });
    expect(actor.getSnapshot().matches({ gallery: 'deleting' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ gallery: 'ready' }));
    expect(calls.deletes).to.deep.equal(['a']);
    expect(actor.getSnapshot().context.gallery.map((s) => s.id)).to.deep.equal(['b']);
    expect(calls.notes).to.deep.equal(['“one” deleted']);
    setGallery([snapshot('c', 'from the chart'), snapshot('b', 'two')]);
    changed();
    await waitFor(actor, (s) => s.matches({ gallery: 'ready' }) && s.context.gallery.length === 2);
    expect(calls.galleries).to.equal(2);
    expect(actor.getSnapshot().context.gallery[0]?.title).to.equal('from the chart');
  });

  it('names the image of a snapshot', () => {
    expect(snapshotImagePath('1b2c')).to.equal('/personalize/snapshots/1b2c/image');
  });

  it('writes the size of a snapshot in bytes, KB or MB, never as millions', () => {
    expect(sizeText(512)).to.equal('512 B');
    expect(sizeText(2048)).to.equal('2 KB');
    expect(sizeText(880 * 1024)).to.equal('880 KB');
    expect(sizeText(1023 * 1024)).to.equal('1,023 KB');
    expect(sizeText(1465 * 1024)).to.equal('1.4 MB');
    expect(sizeText(12.5 * 1024 * 1024)).to.equal('12.5 MB');
  });
});
