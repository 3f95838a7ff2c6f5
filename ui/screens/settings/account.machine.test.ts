import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import { ApiError } from '../../services/api.ts';
import { accountMachine, endedText, inFormTerms, type SessionsEnded } from './account.machine.ts';

function account(server: { refuse?: string; ended?: number }) {
  const calls: unknown[] = [];
  const actor = createActor(
    accountMachine.provide({
      actors: {
        changePassword: fromPromise<SessionsEnded, { currentPassword: string; newPassword: string }>(({ input }) => {
          calls.push(input);
          if (server.refuse) return Promise.reject(new ApiError(400, 'bad_request', server.refuse));
          return Promise.resolve({ endedSessions: server.ended ?? 0 });
        }),
        endOtherSessions: fromPromise<SessionsEnded>(() => {
          calls.push('end others');
          return Promise.resolve({ endedSessions: server.ended ?? 0 });
        }),
      },
    }),
  ).start();
  return { actor, calls };
}

const form = { currentPassword: 'long enough', newPassword: 'even longer', repeated: 'even longer' };

describe('account card machine', function () {
  it('changes the password, says how many other sessions ended, and counts the change', async function () {
    const { actor, calls } = account({ ended: 2 });
    actor.send({ type: 'user.changePassword', form });
    expect(actor.getSnapshot().matches('changing')).to.equal(true);
    const done = await waitFor(actor, (s) => s.matches('idle'));
    expect(calls).to.deep.equal([{ currentPassword: 'long enough', newPassword: 'even longer' }]);
    expect(done.context).to.deep.equal({
      done: 'Password changed. 2 other sessions were signed out.',
      error: null,
      changes: 1,
    });
  });

  it('refuses a new password typed differently the second time without asking the server', function () {
    const { actor, calls } = account({});
    actor.send({ type: 'user.changePassword', form: { ...form, repeated: 'even longr' } });
    expect(actor.getSnapshot().matches('idle')).to.equal(true);
    expect(actor.getSnapshot().context.error).to.equal('New password, again: does not match the new password');
    expect(calls).to.deep.equal([]);
  });

  it("words the server's refusal with the form's labels and keeps the count", async function () {
    const { actor } = account({ refuse: 'body.currentPassword: is not the password of this account' });
    actor.send({ type: 'user.changePassword', form });
    const done = await waitFor(actor, (s) => s.matches('idle') && s.context.error !== null);
    expect(done.context.error).to.equal('Current password: is not the password of this account');
    expect(done.context.changes).to.equal(0);
    actor.send({ type: 'user.dismiss' });
    expect(actor.getSnapshot().context.error).to.equal(null);
  });

  it('signs out the other devices and says how many', async function () {
    const { actor, calls } = account({ ended: 1 });
    actor.send({ type: 'user.endOtherSessions' });
    const done = await waitFor(actor, (s) => s.matches('idle') && s.context.done !== null);
    expect(calls).to.deep.equal(['end others']);
    expect(done.context.done).to.equal('1 other session was signed out.');
  });

  it('words the counts and the fields', function () {
    expect(endedText(0)).to.equal('No other session was signed in');
    expect(inFormTerms('body.newPassword: must be at least 8 characters')).to.equal(
      'New password: must be at least 8 characters',
    );
    expect(inFormTerms('Too many attempts: wait a moment and try again')).to.equal(
      'Too many attempts: wait a moment and try again',
    );
  });
});
