import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startReceiver, type TestReceiver } from '../../engine/delivery/testing/receiver.ts';
import { startTestSmtp, type TestSmtp } from '../../engine/delivery/testing/smtp.ts';
import { addWebhookIn, createAlertIn, lastPriceIn, startE2E, type E2E } from './browser.ts';

/** Whether a `StockPulse-Signature` header signs `body` with `secret`. */
function signedWith(header: unknown, body: string, secret: string): boolean {
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header)) ?? [];
  return v1 !== undefined && createHmac('sha256', secret).update(`${t}.${body}`).digest('hex') === v1;
}

/** Opens the settings screen from the account menu. */
async function openSettings(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('menuitem', { name: 'Settings' }).click();
  await page.waitForURL('**/Settings');
  await page.getByRole('heading', { name: 'Settings' }).waitFor();
}

/** The notifications the page constructed (the real Notification API is called through). */
function shownNotifications(page: Page): Promise<{ title: string; body: string }[]> {
  return page.evaluate(() => (window as unknown as { shown: { title: string; body: string }[] }).shown);
}

describe('delivery settings and browser notifications (Chromium)', function () {
  this.timeout(180_000);
  let e2e: E2E;
  let receiver: TestReceiver;
  let smtp: TestSmtp;

  before(async function () {
    this.timeout(300_000);
    // A receiver gone for good on `/gone…`, and unavailable for now on `/busy…` (its delivery waits for a retry).
    receiver = await startReceiver((_i, request) =>
      request.url.startsWith('/gone') ? 410 : request.url.startsWith('/busy') ? 503 : 200,
    );
    smtp = await startTestSmtp();
    e2e = await startE2E({
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      SMTP_URL: smtp.url,
      SMTP_FROM: 'StockPulse <alerts@example.com>',
    });
  });
  after(async () => {
    await e2e?.close();
    await receiver?.close();
    await smtp?.close();
  });

  it('adds a webhook from the settings screen, tests it, and pops a notification up while the tab is hidden', async () => {
    const { page, context, errors } = await e2e.newPage();
    await context.grantPermissions(['notifications'], { origin: e2e.gw.url });
    // Records each notification the page shows (calling the real Notification API through).
    // A string, not a function: the test's compiler would add helpers the page does not have.
    await context.addInitScript(`
      window.shown = [];
      const Real = window.Notification;
      window.Notification = class extends Real {
        constructor(title, options) {
          super(title, options);
          window.shown.push({ title, body: (options && options.body) || '' });
        }
      };
    `);
    await e2e.signUp(page, 'deliv');

    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await page.waitForURL('**/Settings');
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByText('No channel yet').waitFor();

    const notify = page.getByRole('checkbox', { name: 'Show a notification' });
    // Checked once the browser has said it allows notifications (granted to this context).
    await notify.click();
    await page.waitForFunction(() => localStorage.getItem('stockpulse.browserAlerts')?.includes('"notify":true'));
    expect(await notify.isChecked()).to.equal(true);

    await page.getByRole('textbox', { name: 'Webhook URL' }).fill(`${receiver.url}/e2e`);
    await page.getByRole('textbox', { name: 'Webhook name' }).fill('Desk');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.getByText(/Signing secret of the new webhook/);
    await secret.waitFor();
    expect(await secret.textContent()).to.match(/whsec_[0-9a-f]{64}/);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const channel = page.getByRole('listitem', { name: 'Webhook Desk' });
    await channel.waitFor();

    // The same webhook again: the server's refusal, in the form's words.
    await page.getByRole('textbox', { name: 'Webhook URL' }).fill(`${receiver.url}/e2e`);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText(/^Webhook URL: url ".*\/e2e" is already the webhook of channel "Desk"$/).waitFor();

    await channel.getByRole('button', { name: 'Send a test' }).click();
    await channel.getByText('Test delivered (200)').waitFor();
    await channel.getByText(/Test · .* · delivered/).waitFor();
    expect(receiver.requests.map((r) => r.url)).to.deep.equal(['/e2e']);

    const price = await lastPriceIn(page, 'AAPL');
    const threshold = Math.round(price * 100 + 100) / 100;
    const created = await createAlertIn(page, { symbol: 'AAPL', close: threshold, alerttype: 'U' });
    expect(created).to.equal(200);

    // The tab is hidden, as when the trader switched to another.
    await page.evaluate("Object.defineProperty(document, 'hidden', { get() { return true; }, configurable: true })");
    await e2e.pushTicks([{ symbol: 'AAPL', price: threshold + 0.5 }]);
    await page.waitForFunction(() => (window as unknown as { shown: unknown[] }).shown.length === 1);
    const [shown] = await shownNotifications(page);
    expect(shown!.title).to.equal('StockPulse: AAPL');
    expect(shown!.body).to.match(/^AAPL rose above /);

    // The webhook gets the alert too, and the screen lists it under the channel.
    await receiver.waitFor(2);
    await channel.getByText(/Alert · .* · delivered/).waitFor();

    // The service worker that shows Web Push messages is served and registers.
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.register('/sw.js')).scope);
    expect(scope).to.equal(`${e2e.gw.url}/`);
    await e2e.screenshot(page, 'settings');
    // The one error the page logs is the browser's of the refused second webhook.
    expect(errors).to.have.length(1);
    expect(errors[0]).to.match(/status of 409 \(Conflict\) http:\/\/[^ ]+\/personalize\/channels$/);
  });

  it('delivers an alert to the channels ticked in its builder, and to every channel again', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'chooser');
    const addHook = async (name: string) => (await addWebhookIn(page, `${receiver.url}/${name}`, name)).id;
    const desk = await addHook('desk');
    const phone = await addHook('phone');
    const price = await lastPriceIn(page, 'MSFT');
    const level = Math.round(price * 100 + 100) / 100;
    expect(await createAlertIn(page, { symbol: 'MSFT', condition: { op: 'greater_than', value: level } })).to.equal(
      200,
    );
    const channelsOfAlert = () =>
      page.evaluate(async () => {
        const alerts = (await (await fetch('/personalize/stockalerts')).json()) as { channels: string[] | null }[];
        return alerts[0]!.channels;
      });
    expect(await channelsOfAlert()).to.equal(null);

    await page.goto('/Alerts');
    // The grid says where the alert goes besides the bell, naming the channels from the user's list.
    const deliverTo = (text: string) =>
      page.locator('.ag-row .ag-cell[col-id="channels"]', { hasText: new RegExp(`^${text}$`) }).waitFor();
    await deliverTo('Every channel');
    const edit = page.getByRole('button', { name: /^Edit alert MSFT / });
    await edit.click();
    const builder = page.getByRole('form', { name: 'Condition' });
    const every = builder.getByRole('checkbox', { name: 'Every channel' });
    await every.waitFor();
    expect(await every.isChecked()).to.equal(true);
    await every.uncheck();
    // Unticking "Every channel" starts from all of them ticked; the one not wanted is unticked.
    await builder.getByRole('checkbox', { name: 'phone (Webhook)' }).uncheck();
    expect(await builder.getByRole('checkbox', { name: 'desk (Webhook)' }).isChecked()).to.equal(true);
    await e2e.screenshot(page, 'deliver-to');
    await builder.getByRole('button', { name: 'Save and re-arm' }).click();
    await builder.waitFor({ state: 'detached' });
    expect(await channelsOfAlert()).to.deep.equal([desk]);
    await deliverTo('desk \\(Webhook\\)');
    // Loaded afresh, the alerts and the channels come in either order: the cell names the channel all the same.
    await page.reload();
    await deliverTo('desk \\(Webhook\\)');

    const before = receiver.requests.length;
    await e2e.pushTicks([{ symbol: 'MSFT', price: level + 0.5 }]);
    await receiver.waitFor(before + 1);
    expect(receiver.requests.slice(before).map((r) => r.url)).to.deep.equal(['/desk']);
    // The alert's history says where its trigger went, and how it stands (pending until the receiver's answer
    // is recorded, then delivered, without reading the page again).
    await page.getByRole('button', { name: /^History of alert MSFT / }).click();
    const triggers = page.getByRole('table', { name: 'Triggers' });
    await triggers.getByRole('columnheader', { name: 'Delivered' }).waitFor();
    await triggers
      .getByRole('listitem')
      .filter({ hasText: /^desk \(Webhook\): delivered$/ })
      .waitFor();
    await e2e.screenshot(page, 'history-delivered');
    await page.getByRole('button', { name: 'Close the history' }).click();

    // Every channel again: the edit sends null, and the alert answers it so.
    await edit.click();
    await every.check();
    expect(await builder.getByRole('checkbox', { name: 'phone (Webhook)' }).isDisabled()).to.equal(true);
    await builder.getByRole('button', { name: 'Save and re-arm' }).click();
    await builder.waitFor({ state: 'detached' });
    expect(await channelsOfAlert()).to.equal(null);
    await deliverTo('Every channel');
    expect(phone).to.be.a('string');
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("confirms an email address on the link's page only when the button is pressed, signed in or not", async () => {
    const { page, context } = await e2e.newPage();
    const username = await e2e.signUp(page, 'mail');
    const channel = await page.evaluate(async (address) => {
      const response = await fetch('/personalize/channels', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'email', address }),
      });
      return (await response.json()) as { id: string; confirmed: boolean };
    }, `${username}@example.com`);
    expect(channel.confirmed).to.equal(false);
    const confirmed = () =>
      page.evaluate(async () => {
        const channels = (await (await fetch('/personalize/channels')).json()) as { confirmed: boolean }[];
        return channels[0]!.confirmed;
      });
    const token = e2e.gw.running.system.appDeps.delivery!.secrets.confirmToken(username, channel.id);
    const link = `/ConfirmEmail?${new URLSearchParams({ user: username, channel: channel.id, token }).toString()}`;

    // Opened in another browser, signed out, as a mail client opens it.
    const visitor = await e2e.newPage({ expectedErrors: ['/api/channels/confirm'] });
    await visitor.page.goto(link.replace(/token=[0-9a-f]{4}/, 'token=0000'));
    await visitor.page.getByRole('button', { name: 'Confirm this address' }).click();
    await visitor.page.getByText(/This confirmation link is not valid/).waitFor();
    await visitor.page.goto(link);
    const button = visitor.page.getByRole('button', { name: 'Confirm this address' });
    await button.waitFor();
    expect(visitor.page.url()).to.match(/\/ConfirmEmail\?/);
    expect(await confirmed(), 'opening the page confirms nothing').to.equal(false);
    await button.click();
    await visitor.page.getByText('The address is confirmed: alerts will reach it.').waitFor();
    await e2e.screenshot(visitor.page, 'confirm-email');
    expect(await confirmed()).to.equal(true);
    expect(visitor.errors).to.deep.equal([]);
    await visitor.context.close();
    await context.close();
  });

  it('rotates a webhook secret in the settings, shows it once with a copy button, and signs with it', async () => {
    const { page, context, errors } = await e2e.newPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.gw.url });
    const username = await e2e.signUp(page, 'rotate');
    await openSettings(page);
    const path = `/rotate-${username}`;
    await page.getByRole('textbox', { name: 'Webhook URL' }).fill(`${receiver.url}${path}`);
    await page.getByRole('textbox', { name: 'Webhook name' }).fill('Desk');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const first = /whsec_[0-9a-f]{64}/.exec(
      (await page.getByText(/Signing secret of the new webhook/).textContent()) ?? '',
    );
    expect(first).to.not.equal(null);
    await page.getByRole('button', { name: 'I have copied it' }).click();

    const channel = page.getByRole('listitem', { name: 'Webhook Desk' });
    await channel.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByText(/New signing secret of Desk, shown only now/);
    await shown.waitFor();
    const secret = /whsec_[0-9a-f]{64}/.exec((await shown.textContent()) ?? '')?.[0];
    expect(secret).to.be.a('string').and.not.equal(first![0]);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied', exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(secret);
    await e2e.screenshot(page, 'rotate-secret');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    // Shown once: read again, the list shows no secret.
    await page.reload();
    await channel.waitFor();
    expect(await page.getByText(/whsec_/).count()).to.equal(0);

    await channel.getByRole('button', { name: 'Send a test' }).click();
    await channel.getByText('Test delivered (200)').waitFor();
    const request = receiver.requests.find((r) => r.url === path)!;
    expect(signedWith(request.headers['stockpulse-signature'], request.body, secret!)).to.equal(true);
    expect(signedWith(request.headers['stockpulse-signature'], request.body, first![0])).to.equal(false);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('shows a webhook disabled by a 410 Gone, and enables it again', async () => {
    const { page, context, errors } = await e2e.newPage();
    const username = await e2e.signUp(page, 'gone');
    await openSettings(page);
    await page.getByRole('textbox', { name: 'Webhook URL' }).fill(`${receiver.url}/gone-${username}`);
    await page.getByRole('textbox', { name: 'Webhook name' }).fill('Old desk');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const channel = page.getByRole('listitem', { name: 'Webhook Old desk' });
    await channel.getByRole('button', { name: 'Send a test' }).click();
    await channel.getByText(/^Test failed: answered 410/).waitFor();
    await channel.getByText('Disabled: the receiver answered 410 Gone').waitFor();
    await e2e.screenshot(page, 'webhook-disabled');
    await channel.getByRole('button', { name: 'Enable again' }).click();
    await channel.getByText('Disabled: the receiver answered 410 Gone').waitFor({ state: 'detached' });
    expect(await channel.getByRole('button', { name: 'Enable again' }).count()).to.equal(0);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('sends an unconfirmed address its confirmation again from the settings', async () => {
    const { page, context, errors } = await e2e.newPage();
    const username = await e2e.signUp(page, 'resend');
    const address = `${username}@example.com`;
    await openSettings(page);
    await page.getByRole('textbox', { name: 'Email address' }).fill(address);
    await page.getByRole('button', { name: 'Add email' }).click();
    const channel = page.getByRole('listitem', { name: `Email ${address}` });
    await channel.getByText('waiting for the address to be confirmed').waitFor();
    const sent = () => smtp.mails.filter((m) => m.to.includes(address));
    await smtp.waitFor((m) => m.to.includes(address));
    await channel.getByRole('button', { name: 'Send the confirmation again' }).click();
    await channel.getByText('Confirmation sent again: open the link in that email').waitFor();
    await smtp.waitFor(() => sent().length === 2);
    const link = (text: string) => /\/ConfirmEmail\?[^\s"<>]+/.exec(text)?.[0];
    expect(link(sent()[1]!.text)).to.be.a('string').and.equal(link(sent()[0]!.text));
    // Both are in the channel's delivery history.
    await channel
      .getByText(/Confirmation · .* · delivered/)
      .nth(1)
      .waitFor();
    await e2e.screenshot(page, 'resend-confirmation');
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("unsubscribes an address on the unsubscribe link's page only when the button is pressed", async () => {
    const { page, context } = await e2e.newPage();
    const username = await e2e.signUp(page, 'unsub');
    const address = `${username}@example.com`;
    const channelId = await page.evaluate(async (sent) => {
      const response = await fetch('/personalize/channels', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'email', address: sent }),
      });
      return ((await response.json()) as { id: string }).id;
    }, address);
    const { secrets } = e2e.gw.running.system.appDeps.delivery!;
    const confirmed = await fetch(`${e2e.gw.url}/api/channels/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: username, channel: channelId, token: secrets.confirmToken(username, channelId) }),
    });
    expect(confirmed.status).to.equal(200);
    const channelNow = () =>
      page.evaluate(async () => {
        const channels = (await (await fetch('/personalize/channels')).json()) as { confirmed: boolean }[];
        return channels[0]!;
      });
    const query = new URLSearchParams({
      user: username,
      channel: channelId,
      token: secrets.unsubscribeToken(username, channelId),
    });

    // The link of the email's List-Unsubscribe, opened signed out as a mail client opens it: the page asks first.
    const visitor = await e2e.newPage();
    await visitor.page.goto(`/api/channels/unsubscribe?${query.toString()}`);
    await visitor.page.waitForURL(/\/Unsubscribe\?/);
    const button = visitor.page.getByRole('button', { name: 'Unsubscribe' });
    await button.waitFor();
    expect(await channelNow(), 'opening the link unsubscribes nothing').to.include({ confirmed: true });
    await button.click();
    await visitor.page.getByText(/^Unsubscribed: StockPulse sends no more alerts to this address/).waitFor();
    await e2e.screenshot(visitor.page, 'unsubscribe');
    expect(await channelNow()).to.include({ confirmed: false });
    expect(visitor.errors).to.deep.equal([]);
    await visitor.context.close();

    // Its user sees why, and may send the confirmation again.
    await openSettings(page);
    const channel = page.getByRole('listitem', { name: `Email ${address}` });
    await channel.getByText(/unsubscribed .* through an alert email/).waitFor();
    await channel.getByRole('button', { name: 'Send the confirmation again' }).waitFor();
    await context.close();
  });

  it("warns in the bell under an alert's notification that a webhook delivery failed or waits for its retry", async () => {
    const { page, context, errors } = await e2e.newPage();
    const username = await e2e.signUp(page, 'bellwarn');
    // The receiver answers 410 Gone on this path: the alert's delivery to it ends failed; it answers 503 on the
    // other one, so that delivery waits for its retry.
    const added = await addWebhookIn(page, `${receiver.url}/gone-${username}`, 'Ops desk');
    expect(added.status).to.equal(200);
    expect((await addWebhookIn(page, `${receiver.url}/busy-${username}`, 'Night desk')).status).to.equal(200);
    const price = await lastPriceIn(page, 'NVDA');
    const level = Math.round(price * 100 + 100) / 100;
    expect(await createAlertIn(page, { symbol: 'NVDA', condition: { op: 'greater_than', value: level } })).to.equal(
      200,
    );

    await e2e.pushTicks([{ symbol: 'NVDA', price: level + 0.5 }]);
    await page.getByTestId('bell-badge').waitFor();
    await page.getByRole('button', { name: 'Notifications' }).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const firing = panel.locator('.ag-row', { hasText: /NVDA/ });
    await firing.waitFor();
    // The page is not loaded again: the bell reads the deliveries when the server says they changed, and names
    // the channel once the user's channels are read.
    const warning = firing.getByRole('note').filter({ hasText: /Ops desk \(Webhook\): (failed|retrying at)/ });
    await warning.waitFor();
    expect(await warning.textContent()).to.match(/^⚠ Ops desk \(Webhook\): failed: answered 410/);
    // The retry 30 s or so away is told in the zone times are shown in.
    const retrying = firing.getByRole('note').filter({ hasText: /Night desk \(Webhook\)/ });
    await retrying.getByText(/retrying at/).waitFor();
    expect(await retrying.textContent()).to.match(/^⚠ Night desk \(Webhook\): retrying at \d{1,2}:\d{2}/);
    await e2e.screenshot(page, 'bell-delivery-failed');
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
