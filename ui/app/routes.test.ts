import { expect } from 'chai';
import {
  PUBLIC_PAGES,
  SCREENS,
  canonicalAddress,
  isPublicPath,
  publicPageOf,
  screenNamed,
  screenOf,
} from './routes.ts';

describe('routes', function () {
  it('opens the pages of e-mailed links for anyone, in any letter case, and no screen behind the sign-in', function () {
    expect(publicPageOf('/ConfirmEmail')?.path).to.equal('/ConfirmEmail');
    expect(publicPageOf('/resetpassword')?.path).to.equal('/ResetPassword');
    expect(publicPageOf('/unsubscribe')?.path).to.equal('/Unsubscribe');
    for (const path of ['/ConfirmEmail', '/confirmemail', '/ResetPassword', '/RESETPASSWORD', '/Unsubscribe']) {
      expect(isPublicPath(path), path).to.equal(true);
    }
    for (const path of ['/', '/Login', '/Settings', '/Dashboard', '/ResetPassword/x', '/Reset', '/Unsubscribe/x']) {
      expect(isPublicPath(path), path).to.equal(false);
    }
  });

  it("names a screen by its title as well as by its path: the menu's Analyze is the Analyzer", function () {
    const named = (path: string) => screenNamed(path)?.path;
    const names: Record<string, string> = {
      '/Analyze': '/Analyzer',
      '/drill': '/Charting',
      '/PERFORM': '/SectorPerformance',
      '/Search': '/StockSearch',
      '/Sectors': '/SectorSetUp',
      '/Predict': '/Prediction',
      '/PriceChart': '/PriceCharts',
      '/companystatistics': '/CompanyStats',
    };
    for (const [typed, path] of Object.entries(names)) expect(named(typed), typed).to.equal(path);
    // A screen's own path is no other name, and what names no screen stays unknown.
    for (const path of ['/Analyzer', '/dashboard', '/Correlate', '/Watchlist', '/Nowhere', '/Analyze/x', '/']) {
      expect(named(path), path).to.equal(undefined);
    }
    for (const screen of SCREENS) {
      const byTitle = `/${screen.title.replaceAll(' ', '')}`;
      expect(screenNamed(byTitle) ?? screenOf(byTitle), screen.title).to.equal(screen);
    }
  });

  it('reads a symbol typed in the path of a screen that shows one as its stock, the rest of the query kept', function () {
    const addresses: Record<string, string> = {
      '/PriceCharts/AAPL': '/PriceCharts?stock=AAPL',
      '/PriceChart/brk.b': '/PriceCharts?stock=BRK.B',
      '/pricecharts/%20msft%20': '/PriceCharts?stock=MSFT',
      '/CompanyStats/XOM': '/CompanyStats?stock=XOM',
      '/Predict/NVDA': '/Prediction?stock=NVDA',
    };
    for (const [typed, address] of Object.entries(addresses))
      expect(canonicalAddress(typed, ''), typed).to.equal(address);
    expect(canonicalAddress('/PriceChart/aapl', '?stock=MSFT&range=1y')).to.equal('/PriceCharts?stock=AAPL&range=1y');
    expect(canonicalAddress('/Analyze', '?x=1')).to.equal('/Analyzer?x=1');
    // Canonical already, a screen that shows no one symbol, no symbol, or not a symbol: nothing to rewrite.
    for (const path of [
      '/PriceCharts',
      '/Dashboard',
      '/Watchlist/AAPL',
      '/PriceCharts/',
      '/PriceCharts/A$B',
      '/x/AAPL',
    ]) {
      expect(canonicalAddress(path, ''), path).to.equal(undefined);
    }
    expect(canonicalAddress('/PriceCharts/%E0%A4%A', ''), 'a malformed escape').to.equal(undefined);
    expect(canonicalAddress('/PriceCharts/TOOLONGSYMBOL', '')).to.equal(undefined);
  });

  it('keeps the public pages apart from the screens of the app', function () {
    for (const page of PUBLIC_PAGES) expect(screenOf(page.path), page.path).to.equal(undefined);
    for (const screen of SCREENS) expect(publicPageOf(screen.path), screen.path).to.equal(undefined);
  });
});
