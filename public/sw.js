// The service worker of alert-rule push notifications (issue 16). Registered by the dashboard
// only after the trader picks the Push channel and allows notifications. A push carries JSON
// { title, body, url, tag }; a click on the notification focuses a tab already on that page or
// opens it.
/* global self, clients */

self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

function readPayload(event) {
  if (!event.data) return {};
  try {
    return event.data.json();
  } catch {
    return { body: event.data.text() };
  }
}

self.addEventListener('push', (event) => {
  const payload = readPayload(event);
  const title = typeof payload.title === 'string' && payload.title ? payload.title : 'Alert triggered';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof payload.body === 'string' ? payload.body : '',
      tag: typeof payload.tag === 'string' ? payload.tag : undefined,
      icon: '/favicon.svg',
      data: { url: typeof payload.url === 'string' && payload.url ? payload.url : '/dashboard' },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url ?? '/dashboard', self.location.origin);
  event.waitUntil(
    clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => new URL(client.url).pathname === target.pathname);
      if (open) return open.focus();
      // Only our own pages: a payload cannot send the trader elsewhere.
      return clients.openWindow(target.origin === self.location.origin ? target.href : '/dashboard');
    }),
  );
});
