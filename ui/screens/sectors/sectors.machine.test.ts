import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { ApiError } from '../../services/api.ts';
import {
  EMPTY_DRAFT,
  applyAnswer,
  confirmation,
  draftAfterAccepted,
  isCopied,
  nameError,
  parseSymbols,
  suggestions,
  symbolsError,
  type ChangeAnswer,
  type GicsSector,
  type SectorChange,
  type UniverseEntry,
  type UserSector,
} from './sectors.logic.ts';
import { SEARCH_DEBOUNCE_MS, changeFromEvent, sectorsMachine, type SectorsEvent } from './sectors.machine.ts';

const AT = '2026-01-02T10:00:00.000Z';
const chips: UserSector = { id: 's1', name: 'Chips', symbols: ['NVDA', 'AMD'], createdt: AT };
const energy: GicsSector = { sector: 'Energy', symbols: ['XOM', 'CVX'] };

function entry(symbol: string): UniverseEntry {
  return { symbol, name: `${symbol} Corp`, sector: 'Energy', industry: 'Oil', marketcap: 1e10, capclass: 'mid' };
}

/** A fake server holding the sectors, answering each change as the routes do. */
function fakeServer(initial: UserSector[]) {
  let sectors = [...initial];
  let next = 1;
  const answer = (change: SectorChange): ChangeAnswer => {
    const update = (id: string, f: (s: UserSector) => UserSector) => {
      const found = sectors.find((s) => s.id === id);
      if (!found) throw new ApiError(404, 'not_found', `params.id: no sector ${id}`);
      const changed = f(found);
      sectors = sectors.map((s) => (s.id === id ? changed : s));
      return changed;
    };
    switch (change.kind) {
      case 'create':
      case 'copy': {
        const name = change.kind === 'create' ? change.name : change.gics;
        if (sectors.some((s) => s.name.toLowerCase() === name.toLowerCase())) {
          throw new ApiError(409, 'name_taken', `body.name: a sector named ${name} exists`);
        }
        const symbols = change.kind === 'create' ? [...change.symbols] : [...energy.symbols];
        const created = { id: `n${next++}`, name, symbols, createdt: AT };
        sectors = [...sectors, created];
        return created;
      }
      case 'rename':
        return update(change.id, (s) => ({ ...s, name: change.name }));
      case 'addSymbols':
        if (change.symbols.includes('NOPE'))
          throw new ApiError(400, 'unknown_symbol', 'body.symbols[0]: no symbol "NOPE"');
        return update(change.id, (s) => ({
          ...s,
          symbols: [...s.symbols, ...change.symbols.filter((x) => !s.symbols.includes(x))],
        }));
      case 'removeSymbol':
        return update(change.id, (s) => ({ ...s, symbols: s.symbols.filter((x) => x !== change.symbol) }));
      case 'delete':
        sectors = sectors.filter((s) => s.id !== change.id);
        return { id: change.id, deleted: true };
    }
  };
  return { answer, sectors: () => sectors };
}

function page(options: { sectors?: UserSector[]; failLoad?: boolean; searchFails?: boolean } = {}) {
  const server = fakeServer(options.sectors ?? [chips]);
  const sent: SectorChange[] = [];
  const searches: string[] = [];
  const toasts: string[] = [];
  let changed: ((event: SectorsEvent) => void) | null = null;
  const actor = createActor(
    sectorsMachine.provide({
      actors: {
        loadAll: fromPromise(async () => {
          if (options.failLoad) throw new ApiError(0, 'network', 'The server cannot be reached');
          return Promise.resolve({ sectors: server.sectors(), gics: [energy] });
        }),
        loadSectors: fromPromise(async () => Promise.resolve(server.sectors())),
        applyChange: fromPromise<ChangeAnswer, SectorChange>(async ({ input }) => {
          sent.push(input);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return server.answer(input);
        }),
        searchUniverse: fromPromise<readonly UniverseEntry[], { text: string }>(async ({ input }) => {
          searches.push(input.text);
          if (options.searchFails) throw new ApiError(400, 'bad_request', 'query.q: must be at most 50 characters');
          return Promise.resolve([entry('XOM'), entry('NVDA')]);
        }),
        liveChanges: fromCallback<SectorsEvent>(({ sendBack }) => {
          changed = sendBack;
        }),
      },
      actions: { notify: (_, params: { text: string }) => void toasts.push(params.text) },
    }),
  ).start();
  const settled = () => waitFor(actor, (s) => s.matches({ data: 'ready' }) && s.context.queue.length === 0);
  return {
    actor,
    sent,
    searches,
    toasts,
    settled,
    server,
    changed: () => changed?.({ type: 'server.sectorsChanged' }),
  };
}

describe('sectors machine', () => {
  it('loads the user sectors and the GICS sectors', async () => {
    const { actor } = page();
    expect(actor.getSnapshot().matches({ data: 'loading' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ data: 'ready' }));
    expect(actor.getSnapshot().context.sectors).to.deep.equal([chips]);
    expect(actor.getSnapshot().context.gics).to.deep.equal([energy]);
  });

  it('keeps the failure of the load and retries on demand', async () => {
    const { actor } = page({ failLoad: true });
    await waitFor(actor, (s) => s.matches({ data: 'failed' }));
    expect(actor.getSnapshot().context.error).to.equal('The server cannot be reached');
    actor.send({ type: 'user.retry' });
    expect(actor.getSnapshot().matches({ data: 'loading' })).to.equal(true);
  });

  it('creates, adds symbols, renames, removes a symbol and deletes, in the order asked', async () => {
    const { actor, sent, toasts, settled } = page({ sectors: [] });
    await settled();
    actor.send({ type: 'user.create', name: ' Banks ', symbols: 'jpm, bac' });
    expect(actor.getSnapshot().matches({ data: 'saving' })).to.equal(true);
    await settled();
    const id = actor.getSnapshot().context.sectors[0]!.id;
    actor.send({ type: 'user.addSymbols', id, symbols: 'WFC' });
    actor.send({ type: 'user.rename', id, name: 'Big banks' });
    actor.send({ type: 'user.removeSymbol', id, symbol: 'BAC' });
    expect(actor.getSnapshot().context.queue).to.have.length(3);
    await settled();
    expect(actor.getSnapshot().context.sectors).to.deep.equal([
      { id, name: 'Big banks', symbols: ['JPM', 'WFC'], createdt: AT },
    ]);
    actor.send({ type: 'user.delete', id });
    await settled();
    expect(actor.getSnapshot().context.sectors).to.deep.equal([]);
    expect(sent.map((c) => c.kind)).to.deep.equal(['create', 'addSymbols', 'rename', 'removeSymbol', 'delete']);
    expect(sent[0]).to.deep.equal({ kind: 'create', name: 'Banks', symbols: ['JPM', 'BAC'] });
    expect(toasts).to.deep.equal([
      'Created Banks',
      'Added WFC to Banks',
      'Renamed Banks to Big banks',
      'Removed BAC from Big banks',
      'Deleted Big banks',
    ]);
  });

  it('copies a GICS sector with its symbols', async () => {
    const { actor, settled, toasts } = page({ sectors: [] });
    await settled();
    actor.send({ type: 'user.copy', gics: 'Energy' });
    await settled();
    expect(actor.getSnapshot().context.sectors.map((s) => [s.name, s.symbols])).to.deep.equal([
      ['Energy', ['XOM', 'CVX']],
    ]);
    expect(toasts).to.deep.equal(['Copied Energy with 2 symbols']);
  });

  it('refuses a taken or empty name and a bad symbol before sending anything', async () => {
    const { actor, sent, settled } = page();
    await settled();
    actor.send({ type: 'user.create', name: 'chips', symbols: '' });
    expect(actor.getSnapshot().context.actionError).to.equal('Sector name: you already have a sector named "Chips"');
    actor.send({ type: 'user.rename', id: 's1', name: '   ' });
    expect(actor.getSnapshot().context.actionError).to.equal('Sector name: enter a name');
    actor.send({ type: 'user.addSymbols', id: 's1', symbols: 'AAPL, b@d' });
    expect(actor.getSnapshot().context.actionError).to.equal('Symbols: "b@d" is not a symbol');
    actor.send({ type: 'user.dismissError' });
    expect(actor.getSnapshot().context.actionError).to.equal(null);
    expect(sent).to.deep.equal([]);
  });

  it('keeps the "new sector" form through a refused create and empties it once the sector is created', async () => {
    const { actor, sent, settled, server } = page();
    await settled();
    const typeAndCreate = (name: string, symbols: string) => {
      actor.send({ type: 'user.editDraft', name });
      actor.send({ type: 'user.editDraft', symbols });
      const { draft } = actor.getSnapshot().context;
      actor.send({ type: 'user.create', name: draft.name, symbols: draft.symbols });
    };
    typeAndCreate('chips', 'NVDA, AVGO');
    expect(actor.getSnapshot().context.actionError, 'refused here').to.match(/^Sector name: you already have/);
    expect(actor.getSnapshot().context.draft).to.deep.equal({ name: 'chips', symbols: 'NVDA, AVGO' });
    typeAndCreate('Semis', 'NVDA, b@d');
    expect(actor.getSnapshot().context.draft).to.deep.equal({ name: 'Semis', symbols: 'NVDA, b@d' });
    // Another tab created "Semis": the server refuses the create this page did not know to be taken.
    server.answer({ kind: 'create', name: 'Semis', symbols: [] });
    typeAndCreate('Semis', 'NVDA, AVGO');
    await settled();
    expect(actor.getSnapshot().context.actionError).to.equal('Sector name: a sector named Semis exists');
    expect(actor.getSnapshot().context.draft).to.deep.equal({ name: 'Semis', symbols: 'NVDA, AVGO' });
    typeAndCreate(' Accel ', 'NVDA, AVGO');
    expect(actor.getSnapshot().context.draft, 'kept while the create is sent').to.include({ name: ' Accel ' });
    await settled();
    expect(sent.map((c) => c.kind === 'create' && c.name)).to.deep.equal(['Semis', 'Accel']);
    expect(actor.getSnapshot().context.draft).to.deep.equal({ name: '', symbols: '' });
  });

  it('keeps a "new sector" form filled again while the previous create was being sent', () => {
    const created: SectorChange = { kind: 'create', name: 'Banks', symbols: [] };
    expect(draftAfterAccepted({ name: 'Banks ', symbols: 'JPM' }, created)).to.deep.equal(EMPTY_DRAFT);
    expect(draftAfterAccepted({ name: 'Insurers', symbols: 'AIG' }, created)).to.deep.equal({
      name: 'Insurers',
      symbols: 'AIG',
    });
    expect(draftAfterAccepted({ name: 'Banks', symbols: '' }, { kind: 'copy', gics: 'Financials' })).to.deep.equal({
      name: 'Banks',
      symbols: '',
    });
  });

  it('keeps the server message of a refused change and goes on with the next', async () => {
    const { actor, settled } = page();
    await settled();
    actor.send({ type: 'user.addSymbols', id: 's1', symbols: 'NOPE' });
    actor.send({ type: 'user.rename', id: 's1', name: 'Semis' });
    await settled();
    expect(actor.getSnapshot().context.actionError).to.equal('Symbols: no symbol "NOPE"');
    expect(actor.getSnapshot().context.sectors[0]).to.include({ name: 'Semis' });
  });

  it('re-reads the sectors when they change elsewhere', async () => {
    const { actor, settled, server, changed } = page();
    await settled();
    server.answer({ kind: 'create', name: 'Elsewhere', symbols: [] });
    changed();
    expect(actor.getSnapshot().matches({ data: 'refreshing' })).to.equal(true);
    await settled();
    expect(actor.getSnapshot().context.sectors.map((s) => s.name)).to.deep.equal(['Chips', 'Elsewhere']);
  });

  it('searches the universe for a card after a pause, and clears on blank text', async () => {
    const { actor, searches, settled } = page();
    await settled();
    actor.send({ type: 'user.search', sectorId: 's1', text: 'x' });
    actor.send({ type: 'user.search', sectorId: 's1', text: 'xo' });
    expect(actor.getSnapshot().matches({ search: 'debouncing' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ search: 'ready' }), { timeout: SEARCH_DEBOUNCE_MS + 1000 });
    expect(searches).to.deep.equal(['xo']);
    expect(actor.getSnapshot().context.search).to.deep.include({ sectorId: 's1', text: 'xo' });
    expect(actor.getSnapshot().context.search.results.map((r) => r.symbol)).to.deep.equal(['XOM', 'NVDA']);
    actor.send({ type: 'user.search', sectorId: 's1', text: ' ' });
    expect(actor.getSnapshot().matches({ search: 'idle' })).to.equal(true);
    expect(actor.getSnapshot().context.search.sectorId).to.equal(null);
  });

  it('keeps the message of a failed search', async () => {
    const { actor, settled } = page({ searchFails: true });
    await settled();
    actor.send({ type: 'user.search', sectorId: 's1', text: 'abc' });
    await waitFor(actor, (s) => s.matches({ search: 'failed' }), { timeout: SEARCH_DEBOUNCE_MS + 1000 });
    expect(actor.getSnapshot().context.search.error).to.equal('query.q: must be at most 50 characters');
  });
});

describe('sectors logic', () => {
  it('applies answers: a new sector joins, a changed one is replaced, a deletion removes', () => {
    const renamed = { ...chips, name: 'Semis' };
    const other = { ...chips, id: 's2', name: 'Other' };
    expect(applyAnswer([chips], other)).to.deep.equal([chips, other]);
    expect(applyAnswer([chips, other], renamed)).to.deep.equal([renamed, other]);
    expect(applyAnswer([chips, other], { id: 's1', deleted: true })).to.deep.equal([other]);
  });

  it('checks names: empty, too long, taken by another sector in any case', () => {
    expect(nameError('', [chips])).to.equal('Sector name: enter a name');
    expect(nameError('x'.repeat(41), [chips])).to.equal('Sector name: at most 40 characters');
    expect(nameError('CHIPS', [chips])).to.match(/already have a sector/);
    expect(nameError('CHIPS', [chips], 's1'), 'renaming a sector to its own name in another case').to.equal(null);
    expect(nameError('x'.repeat(40), [chips])).to.equal(null);
  });

  it('parses symbol lists and refuses what is not a symbol or too many', () => {
    expect(parseSymbols('aapl, MSFT nvda;aapl')).to.deep.equal({ symbols: ['AAPL', 'MSFT', 'NVDA'], invalid: [] });
    expect(parseSymbols('brk.b ok! ')).to.deep.equal({ symbols: ['BRK.B'], invalid: ['ok!'] });
    const many = Array.from({ length: 100 }, (_, i) => `S${i}`);
    expect(symbolsError({ symbols: ['NEW'], invalid: [] }, many)).to.equal('Symbols: a sector holds at most 100');
    expect(symbolsError({ symbols: ['S1'], invalid: [] }, many)).to.equal(null);
  });

  it('tells copied GICS sectors, offers only symbols not in the sector, and words confirmations', () => {
    expect(isCopied([{ ...chips, name: 'energy' }], 'Energy')).to.equal(true);
    expect(isCopied([chips], 'Energy')).to.equal(false);
    expect(suggestions([entry('NVDA'), entry('XOM')], chips).map((e) => e.symbol)).to.deep.equal(['XOM']);
    expect(confirmation({ kind: 'delete', id: 's1' }, [chips], { id: 's1', deleted: true })).to.equal('Deleted Chips');
  });

  it('counts the symbols of a copied sector in the singular for one', () => {
    const copied: UserSector = { id: 's2', name: 'Energy', symbols: ['XOM'], createdt: AT };
    expect(confirmation({ kind: 'copy', gics: 'Energy' }, [chips], copied)).to.equal('Copied Energy with 1 symbol');
    expect(confirmation({ kind: 'copy', gics: 'Energy' }, [chips], { ...copied, symbols: ['XOM', 'CVX'] })).to.equal(
      'Copied Energy with 2 symbols',
    );
  });

  it('turns user events into changes or refusals', () => {
    expect(changeFromEvent({ type: 'user.addSymbols', id: 's1', symbols: '' }, [chips])).to.deep.equal({
      error: 'Symbols: enter a symbol',
    });
    expect(changeFromEvent({ type: 'user.addSymbols', id: 's1', symbols: 'amd tsm' }, [chips])).to.deep.equal({
      change: { kind: 'addSymbols', id: 's1', symbols: ['AMD', 'TSM'] },
    });
  });
});
