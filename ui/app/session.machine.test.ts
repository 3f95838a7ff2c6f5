import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { sessionMachine, type MarketStatus, type SessionEvent } from './session.machine.ts';

function session(
  options: { signedIn?: boolean; checkFails?: boolean; logoutFails?: boolean; marketFails?: boolean } = {},
) {
  const calls: string[] = [];
  let sendBack: ((event: SessionEvent) => void) | null = null;
  const machine = sessionMachine.provide({
    actors: {
      checkSignedIn: fromPromise(async () => {
        calls.push('check');
        if (options.checkFails) throw new Error('down');
        return Promise.resolve({ signedIn: options.signedIn ?? false, initial: 'A' });
      }),
      signOut: fromPromise(async () => {
        calls.push('signOut');
        if (options.logoutFails) throw new Error('down');
        return Promise.resolve();
      }),
      loadMarketStatus: fromPromise<MarketStatus>(async () => {
        calls.push('market');
        // As the server refuses it when the session ended meanwhile (`sign in first`), or the network drops.
        if (options.marketFails) throw new Error('sign in first');
        return Promise.resolve({ asOf: '2024-12-31', to: '2024-12-31', source: 'simulated', feed: null });
      }),
      liveStatus: fromCallback<SessionEvent>(({ sendBack: back }) => {
        calls.push('socket.open');
        sendBack = back;
        return () => calls.push('socket.close');
      }),
    },
    actions: {
      goToLogin: () => calls.push('goToLogin'),
      goHome: () => calls.push('goHome'),
      leaveLogin: () => calls.push('leaveLogin'),
    },
    delays: { resumedBanner: 20 },
  });
  const actor = createActor(machine).start();
  return { actor, calls, socket: (event: SessionEvent) => sendBack?.(event) };
}

describe('session machine', () => {
  it('sends a visitor whose logged-in check answers false to /Login', async () => {
    const { actor, calls } = session({ signedIn: false });
    await waitFor(actor, (s) => s.matches('signedOut'));
    expect(calls).to.deep.equal(['check', 'goToLogin']);
  });

  it('keeps a signed-in user, reads the initial, opens the live connection and loads the market label', async () => {
    const { actor, calls } = session({ signedIn: true });
    await waitFor(actor, (s) => s.matches('signedIn') && s.context.market !== null);
    expect(actor.getSnapshot().context.initial).to.equal('A');
    expect(actor.getSnapshot().context.market?.source).to.equal('simulated');
    expect(calls).to.include('socket.open');
    expect(calls).not.to.include('goToLogin');
  });

  it("stays signed in without the market label when the market's status cannot be read", async () => {
    const { actor, calls, socket } = session({ signedIn: true, marketFails: true });
    await waitFor(actor, (s) => s.matches('signedIn'));
    await waitFor(actor, () => calls.includes('market'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(actor.getSnapshot().status, 'the session goes on').to.equal('active');
    expect(actor.getSnapshot().context.market).to.equal(null);
    socket({ type: 'socket.connected' });
    expect(actor.getSnapshot().matches({ signedIn: 'live' })).to.equal(true);
  });

  it('offers a retry when the server cannot be reached', async () => {
    const { actor } = session({ checkFails: true });
    await waitFor(actor, (s) => s.matches('unreachable'));
    expect(actor.getSnapshot().context.error).to.match(/cannot be reached/);
    actor.send({ type: 'user.retry' });
    expect(actor.getSnapshot().matches('checking')).to.equal(true);
  });

  it('goes from disconnected to resumed to live, so the banner shows and then goes away', async () => {
    const { actor, socket } = session({ signedIn: true });
    await waitFor(actor, (s) => s.matches('signedIn'));
    socket({ type: 'socket.connected' });
    expect(actor.getSnapshot().matches({ signedIn: 'live' })).to.equal(true);
    socket({ type: 'socket.disconnected' });
    expect(actor.getSnapshot().matches({ signedIn: 'disconnected' })).to.equal(true);
    socket({ type: 'socket.connected' });
    expect(actor.getSnapshot().matches({ signedIn: 'resumed' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ signedIn: 'live' }));
  });

  it('logs out: ends the session, closes the socket, forgets the initial and goes to /', async () => {
    const { actor, calls } = session({ signedIn: true });
    await waitFor(actor, (s) => s.matches('signedIn'));
    actor.send({ type: 'user.logout' });
    await waitFor(actor, (s) => s.matches('signedOut'));
    expect(calls).to.include.members(['signOut', 'socket.close', 'goHome']);
    expect(actor.getSnapshot().context.initial).to.equal('');
  });

  it('still signs out locally when the logout request fails', async () => {
    const { actor, calls } = session({ signedIn: true, logoutFails: true });
    await waitFor(actor, (s) => s.matches('signedIn'));
    actor.send({ type: 'user.logout' });
    await waitFor(actor, (s) => s.matches('signedOut'));
    expect(calls).to.include('goHome');
  });

  it('leaves the login page after a sign-in, for the page asked for', async () => {
    const { actor, calls } = session({ signedIn: false });
    await waitFor(actor, (s) => s.matches('signedOut'));
    actor.send({ type: 'user.signedIn', initial: 'Z' });
    expect(actor.getSnapshot().matches('signedIn')).to.equal(true);
    expect(actor.getSnapshot().context.initial).to.equal('Z');
    expect(calls).to.include('leaveLogin');
  });

  it('returns to /Login when the server says the session ended', async () => {
    const { actor, calls } = session({ signedIn: true });
    await waitFor(actor, (s) => s.matches('signedIn'));
    actor.send({ type: 'server.sessionEnded' });
    expect(actor.getSnapshot().matches('signedOut')).to.equal(true);
    expect(calls.filter((c) => c === 'goToLogin')).to.have.length(1);
  });
});
