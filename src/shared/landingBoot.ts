// The one inline script of the HTML '/' is served with (landing.html, written by vite.config.ts):
// the landing is prerendered there and painted from the HTML alone, and this script asks for the
// page's modules only after that first frame, so no script download competes with the HTML or
// comes before the largest paint (Lighthouse counts every request that ends before the largest
// paint as holding it up). The modules' addresses are the script element's data attributes
// (data-entry: the entry, data-preload: the chunks it imports, space-separated), so its text
// never changes between builds: the Content-Security-Policy allows exactly this text by its hash
// (src/server/http/security.ts), never inline scripts in general. A hidden tab paints no frames:
// it asks at once.
export const LANDING_BOOT_SCRIPT =
  '(function(s){var d=document;function go(){' +
  "(s.getAttribute('data-preload')||'').split(' ').forEach(function(u){if(!u)return;" +
  "var l=d.createElement('link');l.rel='modulepreload';l.crossOrigin='';l.href=u;d.head.appendChild(l)});" +
  "var e=d.createElement('script');e.type='module';e.crossOrigin='';e.src=s.getAttribute('data-entry');d.head.appendChild(e)}" +
  "if(d.visibilityState==='visible')requestAnimationFrame(function(){setTimeout(go,0)});else go()})(document.currentScript)";

/** The script element landing.html carries instead of Vite's module script and modulepreload links. */
export function landingBootTag(entry: string, preloads: readonly string[]): string {
  const quote = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<script data-entry="${quote(entry)}" data-preload="${quote(preloads.join(' '))}">${LANDING_BOOT_SCRIPT}</script>`;
}
