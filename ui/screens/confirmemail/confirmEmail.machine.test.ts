import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import { ApiError } from '../../services/api.ts';
import { confirmEmailMachine, confirmLinkOf, type ConfirmLink } from './confirmEmail.machine.ts';

const LINK: ConfirmLink = { user: 'ada', channel: '00000000-0000-4000-8000-000000000001', token: 'f'.repeat(64) };

function page(link: ConfirmLink | null, answers: (() => Promise<unknown>)[]) {
  const sent: ConfirmLink[] = [];
  const actor = createActor(
    confirmEmailMachine.provide({
      actors: {
        confirm: fromPromise<unknown, ConfirmLink>(({ input }) => {
          sent.push(input);
          return answers.shift()!();
        }),
      },
    }),
    { input: { link } },
  ).start();
  return { actor, sent };
}

describe('confirm email page machine', function () {
  it('confirms only when asked, with the fields of the link', async function () {
    const { actor, sent } = page(LINK, [() => Promise.resolve({ id: LINK.channel, confirmed: true })]);
    expect(actor.getSnapshot().matches('ready')).to.equal(true);
    expect(sent).to.deep.equal([]);
    actor.send({ type: 'user.confirm' });
    await waitFor(actor, (s) => s.matches('confirmed'));
    expect(sent).to.deep.equal([LINK]);
  });

  it("shows the server's refusal and lets the person try again", async function () {
    const { actor, sent } = page(LINK, [
      () => Promise.reject(new ApiError(404, 'not_found', 'body.token: no such confirmation link')),
      () => Promise.resolve({ id: LINK.channel, confirmed: true }),
    ]);
    actor.send({ type: 'user.confirm' });
    const refused = await waitFor(actor, (s) => s.matches('ready') && s.context.error !== null);
    expect(refused.context.error).to.match(/^This confirmation link is not valid/);
    actor.send({ type: 'user.confirm' });
    await waitFor(actor, (s) => s.matches('confirmed'));
    expect(sent).to.have.length(2);
  });

  it('says a link whose fields the server refuses (cut or mistyped) is not valid, in words', async function () {
    const { actor } = page({ ...LINK, channel: 'zzz' }, [
      () => Promise.reject(new ApiError(400, 'bad_request', 'body.channel: must be a channel id')),
    ]);
    actor.send({ type: 'user.confirm' });
    const refused = await waitFor(actor, (s) => s.matches('ready') && s.context.error !== null);
    expect(refused.context.error).to.match(/^This confirmation link is not valid/);
  });

  it('says a link without its fields is incomplete, and sends nothing', function () {
    expect(confirmLinkOf(new URLSearchParams('user=ada&channel=x'))).to.equal(null);
    const { actor, sent } = page(null, []);
    expect(actor.getSnapshot().matches('incomplete')).to.equal(true);
    actor.send({ type: 'user.confirm' });
    expect(sent).to.deep.equal([]);
    expect(confirmLinkOf(new URLSearchParams('user=ada&channel=c&token=t'))).to.deep.equal({
      user: 'ada',
      channel: 'c',
      token: 't',
    });
  });
});
