import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import { ApiError } from '../../services/api.ts';
import {
  endedText,
  formRefusal,
  refusalOf,
  resetLinkOf,
  resetPasswordMachine,
  type ResetLink,
  type SessionsEnded,
} from './resetPassword.machine.ts';

const LINK: ResetLink = { user: 'ada', request: '6f1c2e0a-8d4b-4c1e-9a7f-0b1d2c3e4f51', token: 'f'.repeat(64) };
const FORM = { newPassword: 'a brand new password', repeated: 'a brand new password' };

/** The page over a fake server answering each reset in turn. */
function page(link: ResetLink | null, answers: (() => Promise<SessionsEnded>)[]) {
  const sent: (ResetLink & { newPassword: string })[] = [];
  const actor = createActor(
    resetPasswordMachine.provide({
      actors: {
        resetPassword: fromPromise<SessionsEnded, ResetLink & { newPassword: string }>(({ input }) => {
          sent.push(input);
          return answers.shift()!();
        }),
      },
    }),
    { input: { link } },
  ).start();
  return { actor, sent };
}

describe('reset password page machine', function () {
  it('sends the link and the new password, and says how many sessions ended', async function () {
    const { actor, sent } = page(LINK, [() => Promise.resolve({ endedSessions: 2 })]);
    expect(actor.getSnapshot().matches('ready')).to.equal(true);
    expect(sent).to.deep.equal([]);
    actor.send({ type: 'user.submit', form: FORM });
    const done = await waitFor(actor, (s) => s.matches('done'));
    expect(sent).to.deep.equal([{ ...LINK, newPassword: FORM.newPassword }]);
    expect(done.context.endedSessions).to.equal(2);
    expect(endedText(2)).to.equal('2 sessions were signed out');
    expect(endedText(1)).to.equal('1 session was signed out');
    expect(endedText(0)).to.equal('No session was signed in');
  });

  it('refuses a password typed differently twice, or too short, without asking the server', function () {
    const { actor, sent } = page(LINK, []);
    actor.send({ type: 'user.submit', form: { newPassword: 'a brand new password', repeated: 'a brand new pass' } });
    expect(actor.getSnapshot().context.error).to.equal('New password, again: does not match the new password');
    expect(actor.getSnapshot().context.errorField).to.equal('repeated');
    actor.send({ type: 'user.submit', form: { newPassword: 'short', repeated: 'short' } });
    expect(actor.getSnapshot().context.error).to.equal('New password: 8 to 128 characters');
    expect(actor.getSnapshot().context.errorField).to.equal('new');
    expect(actor.getSnapshot().matches('ready')).to.equal(true);
    expect(sent).to.deep.equal([]);
    expect(formRefusal(FORM)).to.equal(null);
  });

  it("words the server's refusal of the password with the form's label, and lets the person try again", async function () {
    const { actor, sent } = page(LINK, [
      () => Promise.reject(new ApiError(400, 'bad_request', 'body.newPassword: must be at most 128 characters')),
      () => Promise.resolve({ endedSessions: 0 }),
    ]);
    actor.send({ type: 'user.submit', form: FORM });
    const refused = await waitFor(actor, (s) => s.matches('ready') && s.context.error !== null);
    expect(refused.context.error).to.equal('New password: must be at most 128 characters');
    expect(refused.context.errorField).to.equal('new');
    expect(refused.context.linkRefused).to.equal(false);
    actor.send({ type: 'user.submit', form: FORM });
    await waitFor(actor, (s) => s.matches('done'));
    expect(sent).to.have.length(2);
  });

  it('says a used, expired or forged link is the link, so a new one is asked for', async function () {
    const { actor } = page(LINK, [
      () =>
        Promise.reject(
          new ApiError(400, 'reset_expired', 'body.request: has expired (a reset link works for one hour)'),
        ),
    ]);
    actor.send({ type: 'user.submit', form: FORM });
    const refused = await waitFor(actor, (s) => s.context.error !== null);
    expect(refused.context.error).to.equal('Reset link: has expired (a reset link works for one hour)');
    expect(refused.context.linkRefused).to.equal(true);
    expect(refused.context.errorField, 'the link is no field of the form').to.equal(null);
    expect(
      refusalOf(new ApiError(400, 'bad_request', 'body.token: is not the token of this reset link')),
    ).to.deep.equal({ message: 'Reset link: is not the token of this reset link', field: null, linkRefused: true });
    expect(refusalOf(new ApiError(429, 'rate_limited', 'slow down', 600))).to.deep.equal({
      message: 'Too many attempts. Try again in 10 min.',
      field: null,
      linkRefused: false,
    });
  });

  it('says a link without its fields is incomplete, and sends nothing', function () {
    expect(resetLinkOf(new URLSearchParams('user=ada&request=r'))).to.equal(null);
    expect(resetLinkOf(new URLSearchParams('user=ada&request=r&token=t'))).to.deep.equal({
      user: 'ada',
      request: 'r',
      token: 't',
    });
    const { actor, sent } = page(null, []);
    expect(actor.getSnapshot().matches('incomplete')).to.equal(true);
    actor.send({ type: 'user.submit', form: FORM });
    expect(sent).to.deep.equal([]);
  });
});
