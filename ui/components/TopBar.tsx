/**
 * The top bar: title link to the dashboard, the nine menu items (a dropdown on narrow screens), the bell and
 * the avatar with its menu: the theme (System, Light, Dark), the time zone times are shown in (Market, Local),
 * the alert manager, Settings and Logout. Both menus are menu buttons: opened, the account menu focuses the chosen
 * theme and the narrow screen's menu the page shown; ArrowDown and ArrowUp move through the items (wrapping), Home
 * and End go to the first and the last; Escape closes it and gives the focus back to its button, as a click outside
 * closes it.
 */
import { useEffect, useState, type KeyboardEvent, type ReactNode } from 'react';
import { MENU_ITEMS } from '../app/menu.ts';
import {
  preferences,
  THEME_CHOICES,
  TIME_ZONE_CHOICES,
  usePreferences,
  type ThemeChoice,
  type TimeZoneChoice,
} from '../services/preferences.ts';
import { zoneLabel } from '../services/time.ts';
import { Link } from './Link.tsx';
import { StrokeIcon } from './StrokeIcon.tsx';
import { useDismiss } from './useDismiss.ts';

const THEME_LABELS: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** A group of exclusive choices in a menu. */
function ChoiceGroup<T extends string>(props: {
  readonly label: string;
  readonly choices: readonly T[];
  readonly chosen: T;
  readonly labelOf: (choice: T) => string;
  readonly onChoose: (choice: T) => void;
  /** Focus the chosen item when the menu opens. */
  readonly autoFocus?: boolean;
}) {
  return (
    <div className="menu-group" role="group" aria-label={props.label}>
      <span className="menu-group-label" aria-hidden="true">
        {props.label}
      </span>
      {props.choices.map((choice) => (
        <button
          key={choice}
          type="button"
          role="menuitemradio"
          aria-checked={choice === props.chosen}
          className="menu-link"
          autoFocus={props.autoFocus === true && choice === props.chosen}
          onClick={() => props.onChoose(choice)}
        >
          {props.labelOf(choice)}
        </button>
      ))}
    </div>
  );
}

/**
 * Moves the focus among a menu's items (`menuitem`, `menuitemradio`, in the order shown): ArrowDown to the next,
 * ArrowUp to the previous, wrapping at either end, Home to the first and End to the last.
 */
function moveInMenu(event: KeyboardEvent<HTMLElement>) {
  const items = [...event.currentTarget.querySelectorAll<HTMLElement>('[role^="menuitem"]')];
  if (items.length === 0) return;
  const at = items.findIndex((item) => item === document.activeElement);
  let next: number;
  switch (event.key) {
    case 'ArrowDown':
      next = at < 0 ? 0 : (at + 1) % items.length;
      break;
    case 'ArrowUp':
      next = at < 0 ? items.length - 1 : (at - 1 + items.length) % items.length;
      break;
    case 'Home':
      next = 0;
      break;
    case 'End':
      next = items.length - 1;
      break;
    default:
      return;
  }
  event.preventDefault();
  items[next]?.focus();
}

/** The top bar. */
export function TopBar(props: {
  readonly path: string;
  readonly initial: string;
  readonly bell: ReactNode;
  readonly onLogout: () => void;
}) {
  const [menuOpen, setMenuOpen] = useState(false);
  const [accountOpen, setAccountOpen] = useState(false);
  // Escape gives the focus back to the menu's button.
  const menuRef = useDismiss(menuOpen, () => setMenuOpen(false), true);
  // Escape gives the focus back to the avatar (the first button of the account's element).
  const accountRef = useDismiss(accountOpen, () => setAccountOpen(false), true);
  useEffect(() => setMenuOpen(false), [props.path]);
  // Opened, the narrow screen's menu focuses the page shown (or its first item), as the account menu its theme.
  useEffect(() => {
    if (!menuOpen) return;
    const items = menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]');
    (menuRef.current?.querySelector<HTMLElement>('[aria-current="page"]') ?? items?.[0])?.focus();
  }, [menuOpen, menuRef]);
  const shown = usePreferences();
  const zoneText = (choice: TimeZoneChoice) =>
    choice === 'market'
      ? `Market time (${zoneLabel(Date.now(), 'market')})`
      : `Local time (${zoneLabel(Date.now(), 'local')})`;

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
          <StrokeIcon size={20}>
            <path d="M3 6h18M3 12h18M3 18h18" />
          </StrokeIcon>
        </button>
        {menuOpen && (
          <nav className="dropdown" role="menu" aria-label="Main" onKeyDown={moveInMenu}>
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
            <div className="dropdown right" role="menu" aria-label="Account" onKeyDown={moveInMenu}>
              <ChoiceGroup
                label="Theme"
                choices={THEME_CHOICES}
                chosen={shown.theme}
                labelOf={(choice) => THEME_LABELS[choice]}
                onChoose={preferences.setTheme}
                autoFocus
              />
              <ChoiceGroup
                label="Times in"
                choices={TIME_ZONE_CHOICES}
                chosen={shown.timeZone}
                labelOf={zoneText}
                onChoose={preferences.setTimeZone}
              />
              <Link to="/Alerts" role="menuitem" className="menu-link" onClick={() => setAccountOpen(false)}>
                Alerts
              </Link>
              <Link to="/Settings" role="menuitem" className="menu-link" onClick={() => setAccountOpen(false)}>
                Settings
              </Link>
              <button
                type="button"
                role="menuitem"
                className="menu-link menu-logout"
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
