import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  findCompany,
  movedIndex,
  submittedHit,
  symbolSearchMachine,
  type SymbolPicked,
  unknownCompanyText,
  type UniverseHit,
} from './symbolSearch.machine.ts';

function hit(symbol: string, name = `${symbol} Inc.`): UniverseHit {
  return { symbol, name, sector: 'Financials', industry: 'Banks', marketcap: 1e11, capclass: 'large' };
}

function search(answers: Record<string, UniverseHit[]>, options: { fail?: boolean; keep?: boolean } = {}) {
  const queries: string[] = [];
  const picked: string[] = [];
  const actor = createActor(
    symbolSearchMachine.provide({
      actors: {
        searchUniverse: fromPromise<UniverseHit[], { text: string }>(async ({ input }) => {
          queries.push(input.text);
          if (options.fail) throw new Error('The server cannot be reached: check the connection and retry');
          return Promise.resolve(answers[input.text] ?? []);
        }),
      },
      delays: { debounce: 5 },
    }),
    { input: { keep: options.keep === true } },
  );
  actor.on('picked', (event: SymbolPicked) => picked.push(event.hit.symbol));
  actor.start();
  return { actor, queries, picked };
}

describe('symbol search machine', () => {
  it('searches once typing pauses, and only for the last text', async () => {
    const { actor, queries } = search({ JP: [hit('JPM', 'JPMorgan Chase')] });
    actor.send({ type: 'user.type', text: 'J' });
    actor.send({ type: 'user.type', text: 'JP' });
    await waitFor(actor, (s) => s.matches('showing'));
    expect(queries).to.deep.equal(['JP']);
    expect(actor.getSnapshot().context.results.map((h) => h.name)).to.deep.equal(['JPMorgan Chase']);
  });

  it('moves the highlight with the arrows and picks it with Enter, then clears', async () => {
    const { actor, picked } = search({ M: [hit('MSFT'), hit('MA'), hit('MRK')] });
    actor.send({ type: 'user.type', text: 'M' });
    await waitFor(actor, (s) => s.matches('showing'));
    actor.send({ type: 'user.move', by: 1 });
    actor.send({ type: 'user.move', by: 1 });
    actor.send({ type: 'user.move', by: -1 });
    expect(actor.getSnapshot().context.active).to.equal(1);
    actor.send({ type: 'user.submit' });
    expect(picked).to.deep.equal(['MA']);
    expect(actor.getSnapshot().context.text).to.equal('');
    expect(actor.getSnapshot().matches('idle')).to.equal(true);
  });

  it('picks the first match when Enter comes before the answer', async () => {
    const { actor, picked } = search({ NVDA: [hit('NVDA')] });
    actor.send({ type: 'user.type', text: 'NVDA' });
    actor.send({ type: 'user.submit' });
    await waitFor(actor, () => picked.length > 0);
    expect(picked).to.deep.equal(['NVDA']);
  });

  it('a symbol field keeps the symbol picked, by a click or by Enter, and searches again only when typed', async () => {
    const { actor, picked, queries } = search({ mic: [hit('MSFT'), hit('MU')], MSF: [hit('MSFT')] }, { keep: true });
    actor.send({ type: 'user.type', text: 'mic' });
    await waitFor(actor, (s) => s.matches('showing'));
    actor.send({ type: 'user.pick', index: 1 });
    expect(picked).to.deep.equal(['MU']);
    expect(actor.getSnapshot().context.text).to.equal('MU');
    expect(actor.getSnapshot().context.results).to.deep.equal([]);
    actor.send({ type: 'user.type', text: 'MSF' });
    actor.send({ type: 'user.submit' });
    await waitFor(actor, (s) => s.matches('idle') && picked.length === 2);
    expect(picked).to.deep.equal(['MU', 'MSFT']);
    expect(actor.getSnapshot().context.text).to.equal('MSFT');
    expect(queries).to.deep.equal(['mic', 'MSF']);
  });

  it('opens no list once the field is left before the answer, unless Enter waits for it', async () => {
    const { actor, picked, queries } = search({ A: [hit('AAPL')], N: [hit('NVDA')] });
    actor.send({ type: 'user.type', text: 'A' });
    actor.send({ type: 'user.close' });
    expect(actor.getSnapshot().matches('idle')).to.equal(true);
    actor.send({ type: 'user.type', text: 'N' });
    await waitFor(actor, (s) => s.matches('searching'));
    actor.send({ type: 'user.close' });
    expect(actor.getSnapshot().matches('idle')).to.equal(true);
    expect(queries).to.deep.equal(['N']);
    actor.send({ type: 'user.type', text: 'N' });
    actor.send({ type: 'user.submit' });
    actor.send({ type: 'user.close' });
    await waitFor(actor, () => picked.length > 0);
    expect(picked).to.deep.equal(['NVDA']);
  });

  it('picks a clicked match', async () => {
    const { actor, picked } = search({ A: [hit('AAPL'), hit('AMZN')] });
    actor.send({ type: 'user.type', text: 'A' });
    await waitFor(actor, (s) => s.matches('showing'));
    actor.send({ type: 'user.pick', index: 1 });
    expect(picked).to.deep.equal(['AMZN']);
  });

  it('shows no list for blank text, picks nothing without a match, and closes on Escape', async () => {
    const { actor, picked, queries } = search({ A: [hit('AAPL')] });
    actor.send({ type: 'user.type', text: '   ' });
    expect(actor.getSnapshot().matches('idle')).to.equal(true);
    actor.send({ type: 'user.type', text: 'zzz' });
    await waitFor(actor, (s) => s.matches('showing'));
    actor.send({ type: 'user.submit' });
    expect(picked).to.deep.equal([]);
    actor.send({ type: 'user.type', text: 'A' });
    await waitFor(actor, (s) => s.matches('showing') && s.context.results.length === 1);
    actor.send({ type: 'user.close' });
    expect(actor.getSnapshot().matches('idle')).to.equal(true);
    actor.send({ type: 'user.open' });
    expect(actor.getSnapshot().matches('showing')).to.equal(true);
    expect(queries).to.deep.equal(['zzz', 'A']);
  });

  it('keeps the message of a failed search', async () => {
    const { actor } = search({}, { fail: true });
    actor.send({ type: 'user.type', text: 'X' });
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).to.equal('The server cannot be reached: check the connection and retry');
  });

  it('wraps the highlight around and prefers an exact symbol when none is highlighted', () => {
    expect(movedIndex(2, 1, 3)).to.equal(0);
    expect(movedIndex(0, -1, 3)).to.equal(2);
    expect(movedIndex(0, 1, 0)).to.equal(0);
    expect(submittedHit({ results: [hit('MS'), hit('MSFT')], active: 5, text: 'msft' })?.symbol).to.equal('MSFT');
  });
});

describe('a symbol checked against the universe', () => {
  const realFetch = globalThis.fetch;
  let asked: string[] = [];
  beforeEach(() => {
    asked = [];
    globalThis.fetch = async (url: string | URL | Request) => {
      asked.push(url instanceof Request ? url.url : url.toString());
      return Promise.resolve(Response.json([hit('ZZZ'), hit('ZZZZA')]));
    };
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('finds the company of its exact symbol, and none for a symbol the market data lacks', async () => {
    expect((await findCompany('ZZZ'))?.symbol).to.equal('ZZZ');
    expect(await findCompany('ZZZZ')).to.equal(null);
    expect(asked).to.have.length(2);
  });

  it('knows without asking that a text no symbol can be has no company', async () => {
    expect(await findCompany('Z'.repeat(300))).to.equal(null);
    expect(await findCompany('NO SUCH')).to.equal(null);
    expect(asked).to.deep.equal([]);
  });

  it('says so in the same words on every screen, a long text cut short', () => {
    expect(unknownCompanyText('ZZZZ')).to.equal('There is no company ZZZZ in the market data: pick one above.');
    expect(unknownCompanyText('Z'.repeat(300))).to.equal(
      `There is no company ${'Z'.repeat(16)}… in the market data: pick one above.`,
    );
  });
});
