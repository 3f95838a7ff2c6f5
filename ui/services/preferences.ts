/**
 * The viewer's display preferences, remembered per browser (localStorage): the theme (System follows
 * `prefers-color-scheme`, or Light, or Dark) and the time zone times are shown in (the market's, New York, or
 * the browser's own).
 *
 * API: `preferences.get()` (the choices and the resolved theme), `preferences.setTheme(choice)`,
 * `preferences.setTimeZone(choice)`, `preferences.subscribe(listener)`; in components `usePreferences()`.
 * The resolved theme is written on `<html>` as `data-theme` (the app's CSS custom properties) and
 * `data-ag-theme-mode` (AG Grid's colour scheme); `public/theme.js` writes them before the app loads, by
 * {@link resolveTheme}'s rule, so a page never shows the other theme first.
 */
import { useSyncExternalStore } from 'react';

/** What the viewer picked for the theme. */
export type ThemeChoice = 'system' | 'light' | 'dark';
/** The theme the page shows. */
export type Theme = 'light' | 'dark';
/** The zone times are shown in: the market's (New York) or the browser's own. */
export type TimeZoneChoice = 'market' | 'local';

/** The choices and the theme they give. */
export interface Preferences {
  readonly theme: ThemeChoice;
  readonly timeZone: TimeZoneChoice;
  /** The theme shown: the choice, or the system's for `system`. */
  readonly resolvedTheme: Theme;
}

/** The localStorage keys (also read by `public/theme.js`). */
export const PREFERENCE_KEYS = Object.freeze({ theme: 'stockpulse.theme', timeZone: 'stockpulse.timeZone' });

/** The theme choices in the order the menu offers them. */
export const THEME_CHOICES: readonly ThemeChoice[] = Object.freeze(['system', 'light', 'dark']);
/** The time zone choices in the order the menu offers them. */
export const TIME_ZONE_CHOICES: readonly TimeZoneChoice[] = Object.freeze(['market', 'local']);

/** The media query of a dark system theme. */
export const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The theme a choice shows, given whether the system asks for dark. */
export function resolveTheme(choice: ThemeChoice, systemDark: boolean): Theme {
  if (choice === 'system') return systemDark ? 'dark' : 'light';
  return choice;
}

/** A stored theme choice; `system` for anything else (nothing stored, an old or edited value). */
export function parseThemeChoice(value: string | null): ThemeChoice {
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** A stored time zone choice; `market` for anything else. */
export function parseTimeZoneChoice(value: string | null): TimeZoneChoice {
  return value === 'local' ? 'local' : 'market';
}

/** What the store needs of the browser; every part may be missing (tests, a browser refusing storage). */
export interface PreferenceEnvironment {
  readonly storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
  readonly media?: Pick<MediaQueryList, 'matches' | 'addEventListener'> | null;
  readonly root?: { setAttribute(name: string, value: string): void; style?: { colorScheme: string } } | null;
}

/** The preferences of one browser. */
export interface PreferenceStore {
  readonly get: () => Preferences;
  readonly setTheme: (choice: ThemeChoice) => void;
  readonly setTimeZone: (choice: TimeZoneChoice) => void;
  /** Calls `listener` after every change (a choice, or the system's theme under `system`); returns the unsubscribe. */
  readonly subscribe: (listener: () => void) => () => void;
}

function read(storage: PreferenceEnvironment['storage'], key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(storage: PreferenceEnvironment['storage'], key: string, value: string): void {
  try {
    storage?.setItem(key, value);
  } catch {
    // Storage refused (private mode, quota): the choice holds for this page only.
  }
}

/** A store over the given browser parts; it writes the resolved theme on `root` at once and after each change. */
export function createPreferences(env: PreferenceEnvironment): PreferenceStore {
  const listeners = new Set<() => void>();
  const systemDark = () => env.media?.matches === true;
  const snapshot = (theme: ThemeChoice, timeZone: TimeZoneChoice): Preferences => ({
    theme,
    timeZone,
    resolvedTheme: resolveTheme(theme, systemDark()),
  });
  let current = snapshot(
    parseThemeChoice(read(env.storage, PREFERENCE_KEYS.theme)),
    parseTimeZoneChoice(read(env.storage, PREFERENCE_KEYS.timeZone)),
  );
  const apply = () => {
    env.root?.setAttribute('data-theme', current.resolvedTheme);
    env.root?.setAttribute('data-ag-theme-mode', current.resolvedTheme);
    if (env.root?.style) env.root.style.colorScheme = current.resolvedTheme;
  };
  const update = (next: Preferences) => {
    if (
      next.theme === current.theme &&
      next.timeZone === current.timeZone &&
      next.resolvedTheme === current.resolvedTheme
    ) {
      return;
    }
    current = next;
    apply();
    for (const listener of [...listeners]) listener();
  };
  apply();
  env.media?.addEventListener('change', () => update(snapshot(current.theme, current.timeZone)));
  return {
    get: () => current,
    setTheme: (choice) => {
      write(env.storage, PREFERENCE_KEYS.theme, choice);
      update(snapshot(choice, current.timeZone));
    },
    setTimeZone: (choice) => {
      write(env.storage, PREFERENCE_KEYS.timeZone, choice);
      update(snapshot(current.theme, choice));
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function browserEnvironment(): PreferenceEnvironment {
  if (typeof window === 'undefined') return {};
  const storage = (): Storage | null => {
    try {
      return window.localStorage;
    } catch {
      return null;
    }
  };
  return {
    storage: storage(),
    media: typeof window.matchMedia === 'function' ? window.matchMedia(DARK_QUERY) : null,
    root: document.documentElement,
  };
}

/** The preferences of this browser (defaults only outside a browser). */
export const preferences: PreferenceStore = createPreferences(browserEnvironment());

/** The current preferences; the component renders again when they change. */
export function usePreferences(): Preferences {
  return useSyncExternalStore(preferences.subscribe, preferences.get, preferences.get);
}
