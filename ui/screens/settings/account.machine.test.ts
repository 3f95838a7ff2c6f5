import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import { ApiError } from '../../services/api.ts';
import { accountMachine, endedText, formRefusal, refusalOf, type SessionsEnded } from './account.machine.ts';

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
      errorField: null,
      changes: 1,
    });
  });

  it('refuses a new password typed differently the second time without asking the server', function () {
    const { actor, calls } = account({});
    actor.send({ type: 'user.changePassword', form: { ...form, repeated: 'even longr' } });
    expect(actor.getSnapshot().matches('idle')).to.equal(true);
    expect(actor.getSnapshot().context.error).to.equal('New password, again: does not match the new password');
    expect(actor.getSnapshot().context.errorField).to.equal('repeated');
    expect(calls).to.deep.equal([]);
  });

  it('refuses a new password under 8 characters, or a blank current one, without asking the server', function () {
    const { actor, calls } = account({});
    actor.send({ type: 'user.changePassword', form: { ...form, newPassword: 'short', repeated: 'short' } });
    expect(actor.getSnapshot().context.error).to.equal('New password: 8 to 128 characters');
    expect(actor.getSnapshot().context.errorField).to.equal('newPassword');
    actor.send({ type: 'user.changePassword', form: { ...form, currentPassword: '' } });
    expect(actor.getSnapshot().context.error).to.equal('Current password: enter the password you sign in with');
    expect(actor.getSnapshot().context.errorField).to.equal('currentPassword');
    expect(calls).to.deep.equal([]);
  });

  it("replaces the server's refusal of the current password with the form's own at the next try", async function () {
    const server: { refuse?: string } = { refuse: 'body.currentPassword: is not the password of this account' };
    const { actor, calls } = account(server);
    actor.send({ type: 'user.changePassword', form: { ...form, currentPassword: 'wrong password' } });
    await waitFor(actor, (s) => s.matches('idle') && s.context.error !== null);
    expect(actor.getSnapshot().context.error).to.equal('Current password: is not the password of this account');
    delete server.refuse;
    actor.send({ type: 'user.changePassword', form: { ...form, newPassword: 'short', repeated: 'short' } });
    const { context } = actor.getSnapshot();
    expect([context.error, context.errorField]).to.deep.equal(['New password: 8 to 128 characters', 'newPassword']);
    expect(calls).to.deep.equal([{ currentPassword: 'wrong password', newPassword: 'even longer' }]);
  });

  it('takes a refusal away once the field it is about is edited, not when another one is', async function () {
    const { actor } = account({ refuse: 'body.currentPassword: is not the password of this account' });
    actor.send({ type: 'user.changePassword', form });
    await waitFor(actor, (s) => s.matches('idle') && s.context.error !== null);
    expect(actor.getSnapshot().context.errorField).to.equal('currentPassword');
    actor.send({ type: 'user.edit', field: 'newPassword' });
    expect(actor.getSnapshot().context.error).to.equal('Current password: is not the password of this account');
    actor.send({ type: 'user.edit', field: 'currentPassword' });
    expect(actor.getSnapshot().context.error).to.equal(null);
    expect(actor.getSnapshot().context.errorField).to.equal(null);
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
    expect(refusalOf('body.newPassword: must be at least 8 characters')).to.deep.equal({
      field: 'newPassword',
      message: 'New password: must be at least 8 characters',
    });
    expect(refusalOf('Too many attempts: wait a moment and try again')).to.deep.equal({
      field: null,
      message: 'Too many attempts: wait a moment and try again',
    });
    expect(formRefusal(form)).to.equal(null);
  });
});
