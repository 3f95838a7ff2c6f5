import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import {
  createPreferences,
  PREFERENCE_KEYS,
  resolveTheme,
  THEME_CHOICES,
  type PreferenceEnvironment,
} from './preferences.ts';

/** A browser's parts: a Map as localStorage, a switchable dark media query, and `<html>`'s attributes. */
function fakeBrowser(stored: Record<string, string> = {}, dark = false) {
  const items = new Map(Object.entries(stored));
  const attributes = new Map<string, string>();
  const changeListeners: (() => void)[] = [];
  const media = {
    matches: dark,
    addEventListener: (_type: string, listener: () => void) => changeListeners.push(listener),
  };
  const root = {
    setAttribute: (name: string, value: string) => attributes.set(name, value),
    style: { colorScheme: '' },
  };
  const env: PreferenceEnvironment = {
    storage: { getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) },
    media: media as unknown as PreferenceEnvironment['media'],
    root,
  };
  return {
    env,
    items,
    attributes,
    root,
    setSystemDark(value: boolean) {
      media.matches = value;
      for (const listener of changeListeners) listener();
    },
  };
}

describe('display preferences', () => {
  it('resolves System to the system theme and Light or Dark to themselves', () => {
    expect(resolveTheme('system', true)).to.equal('dark');
    expect(resolveTheme('system', false)).to.equal('light');
    expect(resolveTheme('light', true)).to.equal('light');
    expect(resolveTheme('dark', false)).to.equal('dark');
  });

  it('starts from System and market time in a new browser, showing the system theme on <html>', () => {
    const browser = fakeBrowser({}, true);
    const store = createPreferences(browser.env);
    expect(store.get()).to.deep.equal({ theme: 'system', timeZone: 'market', resolvedTheme: 'dark' });
    expect(browser.attributes.get('data-theme')).to.equal('dark');
    expect(browser.attributes.get('data-ag-theme-mode')).to.equal('dark');
    expect(browser.root.style.colorScheme).to.equal('dark');
  });

  it('remembers the choices in storage and reads them back in the next page', () => {
    const browser = fakeBrowser({}, true);
    const store = createPreferences(browser.env);
    store.setTheme('light');
    store.setTimeZone('local');
    expect(browser.items.get(PREFERENCE_KEYS.theme)).to.equal('light');
    expect(browser.items.get(PREFERENCE_KEYS.timeZone)).to.equal('local');
    expect(browser.attributes.get('data-theme')).to.equal('light');
    const next = createPreferences(fakeBrowser(Object.fromEntries(browser.items), true).env);
    expect(next.get()).to.deep.equal({ theme: 'light', timeZone: 'local', resolvedTheme: 'light' });
  });

  it('follows the system theme while on System, and not once a theme is picked', () => {
    const browser = fakeBrowser();
    const store = createPreferences(browser.env);
    let calls = 0;
    store.subscribe(() => (calls += 1));
    browser.setSystemDark(true);
    expect(store.get().resolvedTheme).to.equal('dark');
    expect(browser.attributes.get('data-theme')).to.equal('dark');
    expect(calls).to.equal(1);
    store.setTheme('light');
    browser.setSystemDark(false);
    browser.setSystemDark(true);
    expect(store.get().resolvedTheme).to.equal('light');
    expect(calls, 'the pick notifies; the system changes under Light do not').to.equal(2);
  });

  it('tells subscribers of a change until they unsubscribe, and not of a choice already made', () => {
    const store = createPreferences(fakeBrowser().env);
    const seen: string[] = [];
    const unsubscribe = store.subscribe(() => seen.push(store.get().timeZone));
    store.setTimeZone('market');
    store.setTimeZone('local');
    unsubscribe();
    store.setTimeZone('market');
    expect(seen).to.deep.equal(['local']);
  });

  it('reads edited or unknown stored values as the defaults', () => {
    const store = createPreferences(
      fakeBrowser({ [PREFERENCE_KEYS.theme]: 'purple', [PREFERENCE_KEYS.timeZone]: 'Mars/Olympus' }).env,
    );
    expect(store.get()).to.deep.equal({ theme: 'system', timeZone: 'market', resolvedTheme: 'light' });
  });

  it('keeps working when storage refuses, and without a browser at all', () => {
    const refusing = fakeBrowser();
    const env: PreferenceEnvironment = {
      ...refusing.env,
      storage: {
        getItem: () => {
          throw new Error('denied');
        },
        setItem: () => {
          throw new Error('quota');
        },
      },
    };
    const store = createPreferences(env);
    store.setTheme('dark');
    expect(store.get().resolvedTheme).to.equal('dark');
    const bare = createPreferences({});
    bare.setTimeZone('local');
    expect(bare.get()).to.deep.equal({ theme: 'system', timeZone: 'local', resolvedTheme: 'light' });
  });

  it('has public/theme.js, run before the app, write the theme the store would for every choice', () => {
    const script = readFileSync(new URL('../public/theme.js', import.meta.url), 'utf8');
    for (const choice of [...THEME_CHOICES, null, 'bogus']) {
      for (const dark of [false, true]) {
        const stored: Record<string, string> = choice === null ? {} : { [PREFERENCE_KEYS.theme]: choice };
        const before = fakeBrowser(stored, dark);
        runInNewContext(script, {
          window: { localStorage: before.env.storage, matchMedia: () => ({ matches: dark }) },
          document: { documentElement: before.root },
        });
        const after = fakeBrowser(stored, dark);
        createPreferences(after.env);
        expect([...before.attributes], `${String(choice)} dark=${dark}`).to.deep.equal([...after.attributes]);
        expect(before.root.style.colorScheme).to.equal(after.root.style.colorScheme);
      }
    }
  });
});
