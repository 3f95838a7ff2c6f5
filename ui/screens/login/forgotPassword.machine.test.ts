import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import { ApiError } from '../../services/api.ts';
import { RESET_REQUESTED_TEXT, forgotFailure, forgotPasswordMachine } from './forgotPassword.machine.ts';

/** The form over a fake server answering each request in turn. */
function form(answers: (() => Promise<unknown>)[], open = false) {
  const sent: string[] = [];
  const actor = createActor(
    forgotPasswordMachine.provide({
      actors: {
        requestReset: fromPromise<unknown, { username: string }>(({ input }) => {
          sent.push(input.username);
          return answers.shift()!();
        }),
      },
    }),
    { input: { open } },
  ).start();
  return { actor, sent };
}

describe('forgot password form machine', function () {
  it('opens on asking, sends the user name, and ends on the same answer whatever the server knows', async function () {
    const { actor, sent } = form([() => Promise.resolve({ requested: true })]);
    expect(actor.getSnapshot().matches('closed')).to.equal(true);
    actor.send({ type: 'user.submit', username: 'ada' });
    expect(sent, 'a closed form sends nothing').to.deep.equal([]);
    actor.send({ type: 'user.open' });
    actor.send({ type: 'user.submit', username: 'ada' });
    await waitFor(actor, (s) => s.matches('sent'));
    expect(sent).to.deep.equal(['ada']);
    expect(RESET_REQUESTED_TEXT).to.equal(
      'If the account has a confirmed e-mail address, a link is on its way; it works for one hour.',
    );
    actor.send({ type: 'user.close' });
    expect(actor.getSnapshot().matches('closed')).to.equal(true);
  });

  it('starts open for the page opened with ?forgot', function () {
    expect(form([], true).actor.getSnapshot().matches('editing')).to.equal(true);
  });

  it('asks for a name before sending, and words refusals with the form’s label', async function () {
    const { actor, sent } = form(
      [
        () => Promise.reject(new ApiError(400, 'bad_request', 'body.username: is too long')),
        () => Promise.resolve({ requested: true }),
      ],
      true,
    );
    actor.send({ type: 'user.submit', username: '' });
    expect(actor.getSnapshot().context.error).to.equal('User name: enter the name you sign in with');
    expect(sent).to.deep.equal([]);
    actor.send({ type: 'user.submit', username: 'x'.repeat(65) });
    const refused = await waitFor(actor, (s) => s.matches('editing') && s.context.error !== null);
    expect(refused.context.error).to.equal('User name: is too long');
    actor.send({ type: 'user.submit', username: 'ada' });
    await waitFor(actor, (s) => s.matches('sent'));
    expect(sent).to.deep.equal(['x'.repeat(65), 'ada']);
  });

  it('says how long to wait after too many requests', function () {
    expect(forgotFailure(new ApiError(429, 'rate_limited', 'slow down', 3000))).to.equal(
      'Too many requests. Try again in 50 min.',
    );
  });
});
