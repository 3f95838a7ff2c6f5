import { expect } from 'chai';
import { PUBLIC_PAGES, SCREENS, isPublicPath, publicPageOf, screenOf } from './routes.ts';

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

  it('keeps the public pages apart from the screens of the app', function () {
    for (const page of PUBLIC_PAGES) expect(screenOf(page.path), page.path).to.equal(undefined);
    for (const screen of SCREENS) expect(publicPageOf(screen.path), screen.path).to.equal(undefined);
  });
});
