/**
 * Alerts in this browser: a system notification (Notification API) and an optional sound when a notification
 * arrives while the tab is hidden, and the Web Push subscription of this browser through the service worker
 * (`/sw.js`). What this browser wants is kept in its own storage, since it is about the device, not the user.
 */
import { firingNotificationText } from '../../domain/contract/notifications.ts';
import type { NotificationPush } from '../../domain/contract/socket.ts';
import { live } from './live.ts';

/** What this browser does with an alert while its tab is hidden. */
export interface BrowserAlertPrefs {
  /** Show a system notification. */
  readonly notify: boolean;
  /** Play a short sound. */
  readonly sound: boolean;
}

const STORAGE_KEY = 'stockpulse.browserAlerts';

/** This browser's preferences (both off until the user turns them on). */
export function readBrowserPrefs(): BrowserAlertPrefs {
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}') as Partial<BrowserAlertPrefs>;
    return { notify: stored.notify === true, sound: stored.sound === true };
  } catch {
    return { notify: false, sound: false };
  }
}

/** Saves this browser's preferences. */
export function writeBrowserPrefs(prefs: BrowserAlertPrefs): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(prefs));
}

/** Whether this browser can show system notifications, and what it allows. */
export function notificationPermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** Asks the browser for permission to notify (needs a user gesture). */
export async function askNotificationPermission(): Promise<NotificationPermission | 'unsupported'> {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.requestPermission();
}

/** The page of a notification's symbol. */
export function chartPathOf(symbol: string): string {
  return `/PriceCharts?stock=${encodeURIComponent(symbol)}`;
}

function beep(): void {
  const context = new AudioContext();
  const tone = context.createOscillator();
  const gain = context.createGain();
  tone.frequency.value = 880;
  gain.gain.setValueAtTime(0.15, context.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, context.currentTime + 0.4);
  tone.connect(gain).connect(context.destination);
  tone.start();
  tone.stop(context.currentTime + 0.4);
  tone.onended = () => void context.close();
}

/**
 * Shows a notification that arrived while the tab is hidden, as this browser's preferences say; clicking it
 * brings the tab back and `open`s the symbol's chart.
 */
export function alertInBrowser(push: NotificationPush, open: (path: string) => void, prefs = readBrowserPrefs()): void {
  if (!document.hidden) return;
  if (prefs.notify && notificationPermission() === 'granted') {
    const { title, body } = firingNotificationText(push.symbol, push.notifcationmessage, push.note);
    const shown = new Notification(title, { body, tag: push.id });
    shown.onclick = () => {
      window.focus();
      open(chartPathOf(push.symbol));
      shown.close();
    };
  }
  if (prefs.sound) {
    try {
      beep();
    } catch {
      // A browser without Web Audio stays silent.
    }
  }
}

/** Follows the socket's notifications for the session's lifetime; answers the stop. */
export function startBrowserAlerts(open: (path: string) => void): () => void {
  return live.onNotification((push) => alertInBrowser(push, open));
}

/** The Web Push subscription of this browser for the server's key, made (and the worker registered) if needed. */
export async function subscribePush(publicKey: string): Promise<PushSubscriptionJSON> {
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) {
    throw new Error('This browser cannot receive push messages');
  }
  const registration = await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
  const key = Uint8Array.from(atob(publicKey.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
  return subscription.toJSON();
}
