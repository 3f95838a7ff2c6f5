import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import { ApiError } from '../../services/api.ts';
import {
  checkCredentials,
  loginFailure,
  loginMachine,
  type Credentials,
  type LoginMode,
  type SignedIn,
} from './login.machine.ts';

function login(answer: (input: Credentials & { mode: LoginMode }) => Promise<SignedIn>) {
  const signedIn: SignedIn[] = [];
  const inputs: (Credentials & { mode: LoginMode })[] = [];
  const actor = createActor(
    loginMachine.provide({
      actors: {
        signIn: fromPromise<SignedIn, Credentials & { mode: LoginMode }>(({ input }) => {
          inputs.push(input);
          return answer(input);
        }),
      },
      actions: { signedIn: (_, user) => signedIn.push(user) },
    }),
  ).start();
  return { actor, signedIn, inputs };
}

describe('login machine', () => {
  it('marks the field a refusal is about, and neither for a wrong user name or password', async () => {
    expect(checkCredentials('register', 'Bad Name', 'correct horse')?.field).to.equal('username');
    expect(checkCredentials('register', 'alice', 'short')?.field).to.equal('password');
    expect(checkCredentials('signIn', 'alice', '')?.field).to.equal('password');
    expect(loginFailure('register', new ApiError(409, 'conflict', 'taken')).field).to.equal('username');
    expect(loginFailure('signIn', new ApiError(401, 'unauthorized', 'no')).field).to.equal(null);
    // A field the server refuses is marked and named as the form labels it; a refusal of no field of the form is not.
    expect(
      loginFailure('signIn', new ApiError(400, 'bad_request', 'body.password: must be at most 128 characters')),
    ).to.deep.equal({ message: 'Password: must be at most 128 characters', field: 'password' });
    expect(loginFailure('register', new ApiError(400, 'bad_request', 'body.username: must be 3 to 32'))).to.deep.equal({
      message: 'Could not create the account: User name: must be 3 to 32',
      field: 'username',
    });
    expect(loginFailure('signIn', new ApiError(400, 'bad_request', 'body.remember: unknown field'))).to.deep.equal({
      message: 'unknown field',
      field: null,
    });
    expect(loginFailure('signIn', new ApiError(429, 'rate_limited', 'slow down', 90))).to.deep.equal({
      message: 'Too many attempts. Try again in 2 min.',
      field: null,
    });
    // In the machine: the form's refusal, the server's, and none once the mode changes.
    const { actor } = login(async () => Promise.reject(new ApiError(409, 'taken', 'username: taken')));
    actor.send({ type: 'user.switchMode', mode: 'register' });
    actor.send({ type: 'user.submit', username: 'alice', password: 'short' });
    expect(actor.getSnapshot().context).to.include({ error: 'Password: 8 to 128 characters', errorField: 'password' });
    actor.send({ type: 'user.submit', username: 'alice', password: 'long enough' });
    const taken = await waitFor(actor, (s) => s.matches('editing') && s.context.error !== null);
    expect(taken.context.errorField).to.equal('username');
    actor.send({ type: 'user.switchMode', mode: 'signIn' });
    expect(actor.getSnapshot().context).to.include({ error: null, errorField: null });
  });

  it('signs in and tells the session who signed in', async () => {
    const { actor, signedIn } = login(async ({ username }) => Promise.resolve({ username, initial: 'A' }));
    actor.send({ type: 'user.submit', username: 'alice', password: 'secret-pass' });
    await waitFor(actor, (s) => s.status === 'done');
    expect(signedIn).to.deep.equal([{ username: 'alice', initial: 'A' }]);
  });

  it('shows a wrong password in place and lets the user try again', async () => {
    const { actor } = login(async () => Promise.reject(new ApiError(401, 'unauthorized', 'bad credentials')));
    actor.send({ type: 'user.submit', username: 'alice', password: 'nope' });
    await waitFor(actor, (s) => s.matches('editing') && s.context.error !== null);
    expect(actor.getSnapshot().context.error).to.equal('Wrong user name or password');
  });

  it('says a name is taken when registering', async () => {
    const { actor, inputs } = login(async () => Promise.reject(new ApiError(409, 'taken', 'username: taken')));
    actor.send({ type: 'user.switchMode', mode: 'register' });
    actor.send({ type: 'user.submit', username: 'alice', password: 'long enough' });
    await waitFor(actor, (s) => s.context.error !== null);
    expect(inputs[0]?.mode).to.equal('register');
    expect(actor.getSnapshot().context.error).to.match(/taken/);
  });

  it('says how long to wait after too many attempts', async () => {
    const { actor } = login(async () => Promise.reject(new ApiError(429, 'rate_limited', 'slow down', 600)));
    actor.send({ type: 'user.submit', username: 'alice', password: 'nope' });
    await waitFor(actor, (s) => s.context.error !== null);
    expect(actor.getSnapshot().context.error).to.equal('Too many attempts. Try again in 10 min.');
  });

  it('refuses a malformed form without sending it', () => {
    const { actor, inputs } = login(async () => Promise.resolve({ username: 'x', initial: 'X' }));
    actor.send({ type: 'user.switchMode', mode: 'register' });
    actor.send({ type: 'user.submit', username: 'ab', password: 'long enough' });
    expect(actor.getSnapshot().context.error).to.match(/User name/);
    actor.send({ type: 'user.submit', username: 'alice', password: 'short' });
    expect(actor.getSnapshot().context.error).to.match(/Password/);
    expect(inputs).to.have.length(0);
    expect(checkCredentials('signIn', 'alice', 'x')).to.equal(null);
  });
});
