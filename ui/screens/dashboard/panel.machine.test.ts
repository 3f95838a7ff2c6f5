import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { panelMachine, sameInput, type PanelEvent } from './panel.machine.ts';
import { sortLatestPatterns, type LatestPatterns } from './panels.ts';

function panel(input: unknown, fail: () => boolean = () => false) {
  const loads: unknown[] = [];
  let notify: (() => void) | null = null;
  const actor = createActor(
    panelMachine.provide({
      delays: { settle: 5 },
      actors: {
        load: fromPromise<unknown, unknown>(async ({ input: given }) => {
          loads.push(given);
          if (fail()) throw new Error('The server could not answer');
          return Promise.resolve({ loaded: given });
        }),
        watch: fromCallback<PanelEvent>(({ sendBack }) => {
          notify = () => sendBack({ type: 'server.changed' });
        }),
      },
    }),
    { input },
  ).start();
  return { actor, loads, notify: () => notify?.() };
}

describe('dashboard panel machine', () => {
  it('loads its document for its input', async () => {
    const { actor } = panel({ symbols: ['AAPL'], months: 3 });
    expect(actor.getSnapshot().matches('loading')).to.equal(true);
    await waitFor(actor, (s) => s.matches('ready'));
    expect(actor.getSnapshot().context.data).to.deep.equal({ loaded: { symbols: ['AAPL'], months: 3 } });
  });

  it('loads again for a new input but not for the same one', async () => {
    const { actor, loads } = panel({ symbols: ['AAPL'], months: 3 });
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'parent.input', input: { symbols: ['AAPL'], months: 3 } });
    expect(actor.getSnapshot().matches('ready')).to.equal(true);
    actor.send({ type: 'parent.input', input: { symbols: ['AAPL'], months: 6 } });
    expect(actor.getSnapshot().matches('refreshing')).to.equal(true);
    await waitFor(actor, (s) => s.matches('ready'));
    expect(loads).to.have.length(2);
  });

  it('reads again when the server says the data changed', async () => {
    const { actor, loads, notify } = panel(null);
    await waitFor(actor, (s) => s.matches('ready'));
    notify();
    await waitFor(actor, (s) => s.matches('ready') && loads.length === 2);
  });

  it('reads once for a burst of news, and once more for news during a read, cancelling none', async () => {
    const answers: (() => void)[] = [];
    let loads = 0;
    let notify: () => void = () => undefined;
    const actor = createActor(
      panelMachine.provide({
        delays: { settle: 5 },
        actors: {
          load: fromPromise<unknown, unknown>(({ signal }) => {
            loads += 1;
            const n = loads;
            return new Promise((resolve, reject) => {
              signal.addEventListener('abort', () => reject(new Error(`read ${n} cancelled`)));
              answers.push(() => resolve({ read: n }));
            });
          }),
          watch: fromCallback<PanelEvent>(({ sendBack }) => {
            notify = () => sendBack({ type: 'server.changed' });
          }),
        },
      }),
      { input: null },
    ).start();
    answers.shift()!();
    await waitFor(actor, (s) => s.matches('ready'));
    // An alert firing: its notification and two read models changed, all at once.
    notify();
    notify();
    notify();
    await waitFor(actor, (s) => s.matches('refreshing'));
    expect(loads).to.equal(2);
    // More firings while that read is under way neither cancel it nor start one each.
    notify();
    notify();
    answers.shift()!();
    await waitFor(actor, (s) => s.matches('refreshing') && loads === 3);
    expect(actor.getSnapshot().context.data).to.deep.equal({ read: 2 });
    answers.shift()!();
    const done = await waitFor(actor, (s) => s.matches('ready'));
    expect(done.context.data).to.deep.equal({ read: 3 });
    expect(loads).to.equal(3);
  });

  it('keeps the message of a failed load, stops loading and retries on demand', async () => {
    let failing = true;
    const { actor } = panel(null, () => failing);
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).to.equal('The server could not answer');
    failing = false;
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(actor.getSnapshot().context.error).to.equal(null);
  });

  it('compares inputs by value', () => {
    expect(sameInput({ a: [1, 2] }, { a: [1, 2] })).to.equal(true);
    expect(sameInput({ a: [1, 2] }, { a: [2, 1] })).to.equal(false);
  });

  it('lists the latest patterns newest first, then by symbol, bullish before bearish', () => {
    const row = (stock: string, date: string, type: LatestPatterns['type']): LatestPatterns => ({
      type,
      bullish: type === 'bullish' ? true : type === 'bearish' ? false : null,
      stock,
      date,
      patterns: ['Doji'],
    });
    const sorted = sortLatestPatterns([
      row('MSFT', '2026-01-02', 'bullish'),
      row('AAPL', '2026-01-05', 'bearish'),
      row('AAPL', '2026-01-05', 'bullish'),
      row('NVDA', '2026-01-05', 'neutral'),
    ]);
    expect(sorted.map((r) => `${r.stock} ${r.type}`)).to.deep.equal([
      'AAPL bullish',
      'AAPL bearish',
      'NVDA neutral',
      'MSFT bullish',
    ]);
  });
});
