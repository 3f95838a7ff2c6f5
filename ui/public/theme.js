/* global window, document */
// Writes the theme on <html> before the app loads, so a page never shows the other theme first. A classic
// script (the Content-Security-Policy refuses inline ones) following resolveTheme and PREFERENCE_KEYS of
// ui/services/preferences.ts, whose tests run this file.
(function () {
  function stored() {
    try {
      return window.localStorage.getItem('stockpulse.theme');
    } catch {
      return null;
    }
  }
  var choice = stored();
  var systemDark = typeof window.matchMedia === 'function' && window.matchMedia('(prefers-color-scheme: dark)').matches;
  var theme = choice === 'dark' || (choice !== 'light' && systemDark) ? 'dark' : 'light';
  var root = document.documentElement;
  root.setAttribute('data-theme', theme);
  root.setAttribute('data-ag-theme-mode', theme);
  root.style.colorScheme = theme;
})();
