// Web Push for alert rules: asked for only when the trader picks the Push channel. Asks the
// browser's notification permission, registers the service worker (public/sw.js), subscribes
// with the server's VAPID key and hands the subscription to the server.
import { pushKeyResponse, pushSubscriptionsResponse } from '../../../shared/schemas/alertRules.ts';
import { apiFetch, apiSend } from '../../api/http.ts';

export const PUSH_BLOCKED =
  "Notifications are blocked for this site: allow them in the browser's site settings to get push alerts";
const PUSH_UNSUPPORTED = 'This browser cannot receive push notifications; choose another channel.';

export type PushOutcome = { ok: true } | { ok: false; message: string };

/** A base64url VAPID key as the bytes PushManager.subscribe expects. */
function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(value.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

function sameKey(current: ArrayBuffer | null | undefined, wanted: Uint8Array): boolean {
  if (!current) return false;
  const bytes = new Uint8Array(current);
  return bytes.length === wanted.length && bytes.every((byte, index) => byte === wanted[index]);
}

function pushSupported(): boolean {
  return (
    typeof window !== 'undefined' && 'Notification' in window && 'PushManager' in window && 'serviceWorker' in navigator
  );
}

/** Turns push on for this browser; the message says why not when it cannot. */
export async function enablePush(): Promise<PushOutcome> {
  if (!pushSupported()) return { ok: false, message: PUSH_UNSUPPORTED };
  const permission =
    Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
  if (permission !== 'granted') return { ok: false, message: PUSH_BLOCKED };
  try {
    await navigator.serviceWorker.register('/sw.js');
    const registration = await navigator.serviceWorker.ready;
    const { publicKey } = await apiFetch('/api/push/key', pushKeyResponse);
    const key = base64UrlToBytes(publicKey);
    let subscription = await registration.pushManager.getSubscription();
    // A subscription made with an earlier server key cannot receive pushes signed with this one.
    if (subscription && !sameKey(subscription.options.applicationServerKey, key)) {
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    await apiSend('POST', '/api/push/subscriptions', pushSubscriptionsResponse, subscription.toJSON());
    return { ok: true };
  } catch (error) {
    console.error('Push subscription failed', error);
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `Push could not be turned on in this browser: ${reason}` };
  }
}
