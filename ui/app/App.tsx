/**
 * The shell: the session decides between the sign-in page and the app; the app is the top bar, the
 * connection banner and the screen of the current path.
 */
import { Suspense, useEffect } from 'react';
import { Failed, Skeleton } from '../components/LoadState.tsx';
import { ConnectionBanner } from '../components/ConnectionBanner.tsx';
import { Toasts } from '../components/Toasts.tsx';
import { TopBar } from '../components/TopBar.tsx';
import { Link } from '../components/Link.tsx';
import { Bell } from '../screens/bell/Bell.tsx';
import { navigate, useLocation } from '../services/router.ts';
import { startBrowserAlerts } from '../services/browserAlerts.ts';
import { LoginScreen } from '../screens/login/LoginScreen.tsx';
import { MarketLabel } from './MarketLabel.tsx';
import { SCREENS, canonicalAddress, publicPageOf, screenOf } from './routes.ts';
import { HOME_PATH, NEXT_PARAM, loginAddress, returnAddress } from './signInReturn.ts';
import { Session } from './sessionContext.ts';

function NotFound({ path }: { readonly path: string }) {
  return (
    <section className="screen">
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>. <Link to="/Dashboard">Go to the dashboard</Link>, or to one of the
        pages:
      </p>
      <nav aria-label="Pages">
        <ul className="page-list">
          {SCREENS.map((screen) => (
            <li key={screen.path}>
              <Link to={screen.path}>{screen.title}</Link>
            </li>
          ))}
        </ul>
      </nav>
    </section>
  );
}

function SignedInApp() {
  const location = useLocation();
  const actor = Session.useActorRef();
  const initial = Session.useSelector((s) => s.context.initial);
  const live = Session.useSelector((s) =>
    s.matches({ signedIn: 'disconnected' })
      ? 'disconnected'
      : s.matches({ signedIn: 'resumed' })
        ? 'resumed'
        : s.matches({ signedIn: 'connecting' })
          ? 'connecting'
          : 'live',
  );
  // The root opens the dashboard, and the sign-in page the page it was opened for (its `next`, one of the app's
  // own pages only), else the dashboard; a page typed by its name (`/Analyze`) opens at its own path, with the
  // query kept, and a symbol typed in the path (`/PriceChart/AAPL`) as the screen's `stock`.
  const lower = location.path.toLowerCase();
  const back =
    lower === '/login' ? new URL(returnAddress(location.params.get(NEXT_PARAM)), window.location.origin) : null;
  const typed = back ? back.pathname : lower === '/' ? HOME_PATH : location.path;
  const query = back ? back.search : location.href.slice(location.path.length);
  const canonical = canonicalAddress(typed, query) ?? (typed === location.path ? undefined : typed + query);
  useEffect(() => {
    if (canonical !== undefined) navigate(canonical, { replace: true });
  }, [canonical]);
  const path = canonical === undefined ? typed : new URL(canonical, window.location.origin).pathname;
  const screen = screenOf(path);
  useEffect(() => {
    document.title = screen ? `${screen.title} · StockPulse` : 'StockPulse';
  }, [screen]);
  const Screen = screen?.component;
  // A notification that arrives while the tab is hidden pops up and sounds as this browser's settings say.
  useEffect(() => startBrowserAlerts((to) => navigate(to)), []);
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <TopBar path={path} initial={initial} bell={<Bell />} onLogout={() => actor.send({ type: 'user.logout' })} />
      <ConnectionBanner status={live} />
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Skeleton lines={8} />}>
          {canonical !== undefined ? <Skeleton lines={8} /> : Screen ? <Screen key={path} /> : <NotFound path={path} />}
        </Suspense>
      </main>
      <MarketLabel />
      <Toasts />
    </div>
  );
}

/** The whole app. */
export function App() {
  const location = useLocation();
  const actor = Session.useActorRef();
  const status = Session.useSelector((s) =>
    s.matches('checking')
      ? 'checking'
      : s.matches('unreachable')
        ? 'unreachable'
        : s.matches('signedIn')
          ? 'signedIn'
          : s.matches('signingOut')
            ? 'signingOut'
            : 'signedOut',
  );
  const error = Session.useSelector((s) => s.context.error);
  // The page of an e-mailed link (an address's confirmation, a password reset) is for whoever opens it, signed in
  // or not.
  const publicPage = publicPageOf(location.path);
  useEffect(() => {
    if (status === 'signedOut' && !publicPage && location.path.toLowerCase() !== '/login') {
      navigate(loginAddress(location.href), { replace: true });
    }
  }, [status, location.path, location.href, publicPage]);
  useEffect(() => {
    if (publicPage) document.title = `${publicPage.title} · StockPulse`;
  }, [publicPage]);

  if (publicPage) {
    const Page = publicPage.component;
    return (
      <Suspense
        fallback={
          <div className="centered">
            <Skeleton lines={4} />
          </div>
        }
      >
        <Page />
      </Suspense>
    );
  }

  if (status === 'checking' || status === 'signingOut') {
    return (
      <div className="centered">
        <Skeleton lines={4} />
      </div>
    );
  }
  if (status === 'unreachable') {
    return (
      <div className="centered">
        <Failed message={error ?? 'The server cannot be reached'} onRetry={() => actor.send({ type: 'user.retry' })} />
      </div>
    );
  }
  if (status === 'signedOut') {
    return (
      <>
        <LoginScreen onSignedIn={(initial) => actor.send({ type: 'user.signedIn', initial })} />
        <Toasts />
      </>
    );
  }
  return <SignedInApp />;
}
