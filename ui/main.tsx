/** The entry point: the session actor (with navigation provided) around the shell. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { isPublicPath } from './app/routes.ts';
import { sessionMachine } from './app/session.machine.ts';
import { Session } from './app/sessionContext.ts';
import { HOME_PATH, NEXT_PARAM, loginAddress, returnAddress } from './app/signInReturn.ts';
import { navigate } from './services/router.ts';
import './styles.css';

const session = sessionMachine.provide({
  actions: {
    goToLogin: () => {
      const { pathname, search } = window.location;
      if (!isPublicPath(pathname) && pathname.toLowerCase() !== '/login') {
        navigate(loginAddress(pathname + search), { replace: true });
      }
    },
    goHome: () => navigate('/'),
    // Back to the page the sign-in page was opened for (an address of the app's own pages only), else the dashboard.
    leaveLogin: () => {
      const { pathname, search } = window.location;
      const path = pathname.toLowerCase();
      if (path === '/login') navigate(returnAddress(new URLSearchParams(search).get(NEXT_PARAM)), { replace: true });
      else if (path === '/') navigate(HOME_PATH, { replace: true });
    },
  },
});

// The dashboard is where a signed-in visit lands: its chunk is fetched while the session is being checked.
if (['/', '/dashboard'].includes(window.location.pathname.toLowerCase())) {
  void import('./screens/dashboard/DashboardScreen.tsx');
}

const root = document.getElementById('root');
if (!root) throw new Error('the page has no #root element');
createRoot(root).render(
  <StrictMode>
    <Session.Provider logic={session}>
      <App />
    </Session.Provider>
  </StrictMode>,
);
