/* global self, URL */
/*
 * The service worker of StockPulse: shows the system notification a Web Push message carries (an alert that
 * fired while no tab was open), and opens the symbol's chart when it is clicked.
 */
self.addEventListener('push', (event) => {
  let content = { title: 'StockPulse', body: '', url: '/Dashboard', id: undefined, tag: undefined };
  try {
    content = { ...content, ...event.data.json() };
  } catch {
    content.body = event.data ? event.data.text() : '';
  }
  event.waitUntil(
    self.registration.showNotification(content.title, {
      body: content.body,
      // An alert's tag is its notification's id, which an open tab tags its own notification with: one shows.
      tag: content.tag ?? content.id,
      data: { url: content.url },
      icon: '/favicon.svg',
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url ?? '/Dashboard', self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((w) => w.url === url);
      return open ? open.focus() : self.clients.openWindow(url);
    }),
  );
});
