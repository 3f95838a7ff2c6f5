import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startTestSmtp, type ReceivedMail, type TestSmtp } from '../../engine/delivery/testing/smtp.ts';
import { startE2E, type E2E } from './browser.ts';

const NEW_PASSWORD = 'a new horse battery staple';

/** The path and query of the first link to `page` a mail carries (its origin names the server's own host). */
function linkPath(mail: ReceivedMail, page: string): string {
  const found = new RegExp(`https?://[^/\\s"<>]+(/${page}\\?[^\\s"<>]+)`).exec(mail.text);
  expect(found, mail.text).to.not.equal(null);
  return found![1]!.replaceAll('&amp;', '&');
}

/** Adds an e-mail address through the page's session and confirms it through the link of its mail. */
async function confirmedAddress(page: Page, smtp: TestSmtp, address: string): Promise<void> {
  const status = await page.evaluate(async (sent) => {
    const res = await fetch('/personalize/channels', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'email', address: sent }),
    });
    return res.status;
  }, address);
  expect(status).to.equal(200);
  const mail = await smtp.waitFor((m) => m.to.includes(address) && /Subject: Confirm/.test(m.text));
  const fields = Object.fromEntries(new URL(linkPath(mail, 'ConfirmEmail'), 'http://x').searchParams);
  const confirmed = await page.evaluate(async (body) => {
    const res = await fetch('/api/channels/confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return res.status;
  }, fields);
  expect(confirmed).to.equal(200);
}

describe('password reset by e-mail (Chromium)', function () {
  this.timeout(180_000);
  let e2e: E2E;
  let smtp: TestSmtp;

  before(async function () {
    this.timeout(300_000);
    smtp = await startTestSmtp();
    e2e = await startE2E({ SMTP_URL: smtp.url, SMTP_FROM: 'StockPulse <alerts@example.com>' });
  });
  after(async () => {
    await e2e?.close();
    await smtp?.close();
  });

  it('asks for a link on the sign-in page, sets the password on the mailed page, and signs in with it', async () => {
    const { page, context, errors } = await e2e.newPage();
    const username = await e2e.signUp(page, 'reset');
    const address = `${username}@example.com`;
    await confirmedAddress(page, smtp, address);
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });

    // Another browser, signed out, where the password is forgotten.
    const visitor = await e2e.newPage({ expectedErrors: ['/api/account/password/reset'] });
    await visitor.page.goto('/Login');
    await visitor.page.getByRole('link', { name: 'Forgot password?' }).click();
    const forgot = visitor.page.getByRole('region', { name: 'Reset your password' });
    await forgot.getByLabel('User name').fill(username);
    await forgot.getByRole('button', { name: 'Send the link' }).click();
    await forgot
      .getByText('If the account has a confirmed e-mail address, a link is on its way; it works for one hour.')
      .waitFor();
    await e2e.screenshot(visitor.page, 'forgot-password');

    const mail = await smtp.waitFor((m) => m.to.includes(address) && /Subject: Reset your StockPulse/.test(m.text));
    const link = linkPath(mail, 'ResetPassword');
    await visitor.page.goto(link);
    const card = visitor.page.getByRole('region', { name: 'Reset your password' });
    await card.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await card.getByLabel('New password, again').fill(`${NEW_PASSWORD}!`);
    await card.getByRole('button', { name: 'Set the new password' }).click();
    await card.getByText('New password, again: does not match the new password').waitFor();
    // The field the refusal names is marked and described by it.
    expect(await card.getByLabel('New password, again').getAttribute('aria-invalid')).to.equal('true');
    expect(await card.getByLabel('New password, again').getAttribute('aria-describedby')).to.equal(
      await card.getByRole('alert').getAttribute('id'),
    );
    expect(await card.getByLabel('New password', { exact: true }).getAttribute('aria-invalid')).to.equal(null);
    await card.getByLabel('New password, again').fill(NEW_PASSWORD);
    await card.getByRole('button', { name: 'Set the new password' }).click();
    await card.getByText('Your password is set. 1 session was signed out.').waitFor();
    await e2e.screenshot(visitor.page, 'reset-password');

    // The first browser's session ended: the server closed its socket, and it went to sign in.
    await page.waitForURL('**/Login');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.getByLabel('User name').fill(username);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Wrong user name or password').waitFor();

    await card.getByRole('link', { name: 'Sign in' }).click();
    await visitor.page.waitForURL('**/Login');
    await visitor.page.getByLabel('User name').fill(username);
    await visitor.page.getByLabel('Password').fill(NEW_PASSWORD);
    await visitor.page.getByRole('button', { name: 'Sign in' }).click();
    await visitor.page.waitForURL('**/Dashboard');

    // Signed in, the link's page still opens, and the link, used, is refused with a way to ask for another.
    await visitor.page.goto(link);
    await card.getByLabel('New password', { exact: true }).fill('yet another horse battery');
    await card.getByLabel('New password, again').fill('yet another horse battery');
    await card.getByRole('button', { name: 'Set the new password' }).click();
    await card.getByText(/^Reset link: is not a pending password reset/).waitFor();
    expect(visitor.page.url()).to.match(/\/ResetPassword\?/);
    await card.getByRole('link', { name: 'Ask for a new link' }).waitFor();

    expect(errors.filter((e) => !e.includes('401'))).to.deep.equal([]);
    expect(visitor.errors).to.deep.equal([]);
    await visitor.context.close();
    await context.close();
  });
});
