import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { UnsubscribeLink } from '../../../domain/contract/channels.ts';
import { ApiError } from '../../services/api.ts';
import { unsubscribeLinkOf, unsubscribeMachine } from './unsubscribe.machine.ts';

const LINK: UnsubscribeLink = { user: 'ada', channel: '00000000-0000-4000-8000-000000000001', token: 'f'.repeat(64) };

function page(link: UnsubscribeLink | null, answers: (() => Promise<void>)[]) {
  const sent: UnsubscribeLink[] = [];
  const actor = createActor(
    unsubscribeMachine.provide({
      actors: {
        unsubscribe: fromPromise<void, UnsubscribeLink>(({ input }) => {
          sent.push(input);
          return answers.shift()!();
        }),
      },
    }),
    { input: { link } },
  ).start();
  return { actor, sent };
}

describe('unsubscribe page machine', function () {
  it('unsubscribes only when asked, with the fields of the link', async function () {
    const { actor, sent } = page(LINK, [() => Promise.resolve()]);
    expect(actor.getSnapshot().matches('ready')).to.equal(true);
    expect(sent).to.deep.equal([]);
    actor.send({ type: 'user.unsubscribe' });
    expect(actor.getSnapshot().matches('unsubscribing')).to.equal(true);
    await waitFor(actor, (s) => s.matches('unsubscribed'));
    expect(sent).to.deep.equal([LINK]);
  });

  it("words the server's refusal of the link, and lets the person try again", async function () {
    const { actor, sent } = page(LINK, [
      () => Promise.reject(new ApiError(400, 'bad_request', 'query.token: not the token of this unsubscribe link')),
      () => Promise.reject(new ApiError(0, 'network', 'The server cannot be reached: check the connection and retry')),
      () => Promise.resolve(),
    ]);
    actor.send({ type: 'user.unsubscribe' });
    const refused = await waitFor(actor, (s) => s.matches('ready') && s.context.error !== null);
    expect(refused.context.error).to.match(/^This unsubscribe link is not valid/);
    actor.send({ type: 'user.unsubscribe' });
    const unreachable = await waitFor(actor, (s) => s.matches('ready') && s.context.error !== refused.context.error);
    expect(unreachable.context.error).to.equal('The server cannot be reached: check the connection and retry');
    actor.send({ type: 'user.unsubscribe' });
    await waitFor(actor, (s) => s.matches('unsubscribed'));
    expect(sent).to.have.length(3);
  });

  it('says a link without its fields is incomplete, and sends nothing', function () {
    expect(unsubscribeLinkOf(new URLSearchParams('user=ada&channel=x'))).to.equal(null);
    const { actor, sent } = page(null, []);
    expect(actor.getSnapshot().matches('incomplete')).to.equal(true);
    actor.send({ type: 'user.unsubscribe' });
    expect(sent).to.deep.equal([]);
    expect(unsubscribeLinkOf(new URLSearchParams('user=ada&channel=c&token=t'))).to.deep.equal({
      user: 'ada',
      channel: 'c',
      token: 't',
    });
  });
});
