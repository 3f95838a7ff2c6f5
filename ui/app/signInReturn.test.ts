import { expect } from 'chai';
import { HOME_PATH, LOGIN_PATH, loginAddress, returnAddress } from './signInReturn.ts';

describe('sign-in return', function () {
  it("returns to the path and query of one of the app's screens, as asked", function () {
    const kept: Record<string, string> = {
      '/Watchlist': '/Watchlist',
      '/Watchlist?sort=name&dir=desc': '/Watchlist?sort=name&dir=desc',
      '/PriceCharts?stock=AAPL': '/PriceCharts?stock=AAPL',
      '/watchlist': '/watchlist',
      '/Settings?tab=alerts#channels': '/Settings?tab=alerts',
      '/Dashboard': '/Dashboard',
      // The forms the shell opens at a screen's own address: its title, a symbol in the path.
      '/Analyze': '/Analyze',
      '/PriceChart/AAPL?range=1Y': '/PriceChart/AAPL?range=1Y',
      // Dot segments that stay on the app's pages.
      '/Watchlist/../Portfolio': '/Portfolio',
    };
    for (const [next, expected] of Object.entries(kept)) expect(returnAddress(next), next).to.equal(expected);
  });

  it('falls back to the dashboard without a page to return to', function () {
    for (const next of [null, undefined, '']) expect(returnAddress(next), String(next)).to.equal(HOME_PATH);
  });

  it('refuses every address off this origin: an open redirect is never made', function () {
    const refused = [
      'https://evil.example/Watchlist',
      'http://evil.example',
      'HTTPS://evil.example/Dashboard',
      '//evil.example/Watchlist',
      '//evil.example',
      '///evil.example/Watchlist',
      '/\\evil.example/Watchlist',
      '\\\\evil.example/Watchlist',
      '\\/evil.example',
      '/\t/evil.example/Watchlist',
      '/\n/evil.example',
      ' /Watchlist',
      '/Watchlist ',
      '/\u0000/evil.example',
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)//',
      'data:text/html,<script>alert(1)</script>',
      'evil.example/Watchlist',
      'Watchlist',
      '?next=/Watchlist',
      '#/Watchlist',
      '/%2F%2Fevil.example',
      '/%5Cevil.example',
      '/Watchlist/../../evil.example',
      `/Watchlist?q=${'x'.repeat(2000)}`,
    ];
    for (const next of refused) expect(returnAddress(next), JSON.stringify(next)).to.equal(HOME_PATH);
  });

  it("refuses a path that is no screen behind the sign-in: unknown, the sign-in page, an e-mailed link's", function () {
    const refused = [
      '/',
      '/NoSuchPage',
      '/Login',
      '/login?next=/Watchlist',
      '/ResetPassword?token=x',
      '/ConfirmEmail',
      '/Unsubscribe',
      '/Watchlist/extra',
      '/PriceChart/not a symbol',
      '/api/loggedinstatus',
      '/personalize/dashboard',
    ];
    for (const next of refused) expect(returnAddress(next), next).to.equal(HOME_PATH);
  });

  it("names the page asked for in the sign-in page's address, the dashboard and refused ones left out", function () {
    expect(loginAddress('/Watchlist')).to.equal('/Login?next=%2FWatchlist');
    expect(loginAddress('/Watchlist?sort=name&dir=desc')).to.equal(
      '/Login?next=%2FWatchlist%3Fsort%3Dname%26dir%3Ddesc',
    );
    for (const asked of ['/', '/Dashboard', '/Login', '/NoSuchPage', '//evil.example/Watchlist']) {
      expect(loginAddress(asked), asked).to.equal(LOGIN_PATH);
    }
  });

  it("reads back from the sign-in page's query the page it names", function () {
    for (const asked of ['/Watchlist', '/Watchlist?sort=name&dir=desc', '/PriceCharts?stock=BRK.B&range=5Y']) {
      const next = new URL(loginAddress(asked), 'https://app.example').searchParams.get('next');
      expect(returnAddress(next), asked).to.equal(asked);
    }
  });
});
