/**
 * The app-wide session actor: whether someone is signed in (checked on load), the avatar's initial, and the
 * status of the live connection for the banner. Navigation is a named action the root provides.
 */
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { authApi } from '../../domain/contract/auth.ts';
import { marketApi, type MarketStatus as MarketStatusAnswer } from '../../domain/contract/market.ts';
import { call } from '../services/api.ts';
import { readInitial } from '../services/cookies.ts';
import { live, type LiveStatus } from '../services/live.ts';

/** What the session actor holds. */
export interface SessionContext {
  /** The signed-in user's initial ('' when unknown). */
  readonly initial: string;
  /** Why the last check or sign-out failed. */
  readonly error: string | null;
  /** Where the market data comes from, for the "simulated market" label; null until known. */
  readonly market: MarketStatus | null;
}

/** What the header shows of the market's status (`GET /api/market/status`). */
export type MarketStatus = Pick<MarketStatusAnswer, 'asOf' | 'to' | 'source' | 'feed'>;

/** Events of the session actor. */
export type SessionEvent =
  | { type: 'user.signedIn'; initial: string }
  | { type: 'user.logout' }
  | { type: 'user.retry' }
  | { type: 'server.sessionEnded' }
  | { type: 'socket.connected' }
  | { type: 'socket.disconnected' };

/** Seconds the "live updates resumed" banner stays. */
export const RESUMED_BANNER_MS = 3000;

/** How long after the server closed the socket, the session holding, it is opened again. */
export const RECONNECT_DELAY_MS = 1000;

/** The session machine. */
export const sessionMachine = setup({
  types: { context: {} as SessionContext, events: {} as SessionEvent },
  actors: {
    checkSignedIn: fromPromise(async () => {
      const signedIn = await call(authApi.getLoggedinstatus);
      return { signedIn: signedIn === true, initial: readInitial() };
    }),
    loadMarketStatus: fromPromise<MarketStatus>(async () => call(marketApi.getMarketStatus)),
    signOut: fromPromise(async () => {
      await call(authApi.postLogout);
    }),
    liveStatus: fromCallback<SessionEvent>(({ sendBack }) => {
      live.connect();
      let stopped = false;
      const off = live.onStatus((status: LiveStatus) => {
        if (status === 'connected') sendBack({ type: 'socket.connected' });
        if (status === 'disconnected') sendBack({ type: 'socket.disconnected' });
      });
      // The server closed the socket: signed out elsewhere (another device ended this session, or it expired),
      // then to the sign-in page at once; a server stopping, then the socket is opened again.
      // Opened again after a second, so a socket refused while the session holds is not retried in a tight loop.
      const reopen = () => setTimeout(() => !stopped && live.reconnect(), RECONNECT_DELAY_MS);
      const offServer = live.onServerDisconnect(() => {
        void call(authApi.getLoggedinstatus).then((signedIn) => {
          if (stopped) return;
          if (signedIn === true) reopen();
          else sendBack({ type: 'server.sessionEnded' });
        }, reopen);
      });
      return () => {
        stopped = true;
        off();
        offServer();
        live.disconnect();
      };
    }),
  },
  actions: {
    /** Sends a signed-out visitor to /Login, naming the page they were on to return to. */
    goToLogin: () => undefined,
    /** Goes to / after a sign-out. */
    goHome: () => undefined,
    /** Leaves /Login after a sign-in for the page the visitor asked for (the dashboard when none), and / too. */
    leaveLogin: () => undefined,
  },
  delays: { resumedBanner: RESUMED_BANNER_MS },
}).createMachine({
  id: 'session',
  initial: 'checking',
  context: { initial: '', error: null, market: null },
  states: {
    checking: {
      invoke: {
        src: 'checkSignedIn',
        onDone: [
          {
            guard: ({ event }) => event.output.signedIn,
            target: 'signedIn',
            actions: assign({ initial: ({ event }) => event.output.initial, error: null }),
          },
          { target: 'signedOut', actions: 'goToLogin' },
        ],
        onError: {
          target: 'unreachable',
          actions: assign({ error: 'The server cannot be reached: check the connection and retry' }),
        },
      },
    },
    unreachable: {
      on: { 'user.retry': { target: 'checking' } },
    },
    signedOut: {
      on: {
        'user.signedIn': {
          target: 'signedIn',
          actions: [assign({ initial: ({ event }) => event.initial, error: null }), 'leaveLogin'],
        },
      },
    },
    signedIn: {
      invoke: [
        { src: 'liveStatus' },
        {
          src: 'loadMarketStatus',
          onDone: { actions: assign({ market: ({ event }) => event.output }) },
          // Refused (the session ended meanwhile) or unreachable: the header goes without its market label, and
          // the session goes on (an unhandled failure would stop this machine, and the app with it).
          onError: {},
        },
      ],
      initial: 'connecting',
      on: {
        'user.logout': { target: 'signingOut' },
        'server.sessionEnded': { target: 'signedOut', actions: [assign({ initial: '' }), 'goToLogin'] },
      },
      states: {
        connecting: {
          on: { 'socket.connected': 'live', 'socket.disconnected': 'disconnected' },
        },
        live: {
          on: { 'socket.disconnected': 'disconnected' },
        },
        disconnected: {
          on: { 'socket.connected': 'resumed' },
        },
        resumed: {
          after: { resumedBanner: 'live' },
          on: { 'socket.disconnected': 'disconnected' },
        },
      },
    },
    signingOut: {
      invoke: {
        src: 'signOut',
        onDone: { target: 'signedOut', actions: [assign({ initial: '' }), 'goHome'] },
        onError: { target: 'signedOut', actions: [assign({ initial: '' }), 'goHome'] },
      },
    },
  },
});
