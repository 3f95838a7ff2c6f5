/**
 * The top bar: title link to the dashboard, the nine menu items (a dropdown on narrow screens), the bell and
 * the avatar with its Settings and Logout menu.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { MENU_ITEMS } from '../app/menu.ts';
import { Link } from './Link.tsx';
import { useDismiss } from './useDismiss.ts';

/** The top bar. */
export function TopBar(props: {
  readonly path: string;
  readonly initial: string;
  readonly bell: ReactNode;
  readonly onLogout: () => void;
}) {
  const [menuOpen, setMenuOpen] = useState(false);
  const [accountOpen, setAccountOpen] = useState(false);
  const menuRef = useDismiss(menuOpen, () => setMenuOpen(false));
  const accountRef = useDismiss(accountOpen, () => setAccountOpen(false));
  useEffect(() => setMenuOpen(false), [props.path]);

  const links = MENU_ITEMS.map((item) => (
    <Link
      key={item.path}
      to={item.path}
      role="menuitem"
      className={props.path === item.path ? 'menu-link active' : 'menu-link'}
      aria-current={props.path === item.path ? 'page' : undefined}
    >
      {item.label}
    </Link>
  ));

  return (
    <header className="topbar">
      <Link to="/Dashboard" className="title">
        StockPulse
      </Link>
      <nav className="menu-wide" aria-label="Main" role="menubar">
        {links}
      </nav>
      <div className="menu-narrow" ref={menuRef}>
        <button
          type="button"
          className="icon-button"
          aria-label="Menu"
          aria-haspopup="menu"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen((v) => !v)}
        >
          <svg
            aria-hidden="true"
            width="20"
            height="20"
            viewBox="0 0 24 24"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
          >
            <path d="M3 6h18M3 12h18M3 18h18" />
          </svg>
        </button>
        {menuOpen && (
          <nav className="dropdown" role="menu" aria-label="Main">
            {links}
          </nav>
        )}
      </div>
      <div className="topbar-right">
        {props.bell}
        <div className="account" ref={accountRef}>
          <button
            type="button"
            className="avatar"
            aria-label="Account"
            aria-haspopup="menu"
            aria-expanded={accountOpen}
            onClick={() => setAccountOpen((v) => !v)}
          >
            {props.initial || '?'}
          </button>
          {accountOpen && (
            <div className="dropdown right" role="menu" aria-label="Account">
              <Link
                to="/Settings"
                role="menuitem"
                className="menu-link"
                autoFocus
                onClick={() => setAccountOpen(false)}
              >
                Settings
              </Link>
              <button
                type="button"
                role="menuitem"
                className="menu-link"
                onClick={() => {
                  setAccountOpen(false);
                  props.onLogout();
                }}
              >
                Logout
              </button>
            </div>
          )}
        </div>
      </div>
    </header>
  );
}
