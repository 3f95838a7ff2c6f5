/** The entry point: the session actor (with navigation provided) around the shell. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { isPublicPath } from './app/routes.ts';
import { sessionMachine } from './app/session.machine.ts';
import { Session } from './app/sessionContext.ts';
import { navigate } from './services/router.ts';
import './styles.css';

const session = sessionMachine.provide({
  actions: {
    goToLogin: () => {
      if (!isPublicPath(window.location.pathname)) navigate('/Login', { replace: true });
    },
    goHome: () => navigate('/'),
    goToDashboard: () => {
      const path = window.location.pathname.toLowerCase();
      if (path === '/' || path === '/login') navigate('/Dashboard', { replace: true });
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
