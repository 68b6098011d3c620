// The one inline script of the HTML '/' and '/dashboard' are served with (landing.html, written by
// vite.config.ts, and the dashboard's HTML, src/server/http/spa.ts): the landing is prerendered
// there, the dashboard's HTML paints its loading text, each from the HTML alone, and this script
// asks for the page's modules only once that first paint is on screen (the paint timing entry
// 'first-contentful-paint', which the browser reports after presenting the frame), so no script
// download competes with the HTML or comes before the largest paint (Lighthouse counts every
// request that ends before the largest paint as holding it up). Without paint timing: after the
// next frame (its callbacks run before its paint, a timer after it); and a second after that
// frame at the latest. A hidden tab paints no frames: it asks at once.
// Until the page is hydrated (LandingPage, or showApp in src/web/app.tsx, sets data-hydrated on
// <html>), a form submission is held
// back: the browser's own submission of the prerendered form would send what was typed to the
// server as a page request. A button clicked in that time (the Create Account tab, a plan, Login)
// would do nothing: the last one is marked data-early-click, and the hydrated page clicks it
// again (LandingPage).
//
// The modules' addresses are the script element's data attributes (data-entry: the entry,
// data-preload: the chunks it imports, space-separated), so its text never changes between
// builds: the Content-Security-Policy allows exactly this text by its hash
// (src/server/http/security.ts), never inline scripts in general.
export const BOOT_SCRIPT =
  '(function(s){var d=document,P=window.PerformanceObserver,started=0;' +
  "function h(){return d.documentElement.hasAttribute('data-hydrated')}" +
  "d.addEventListener('submit',function(e){if(!h())e.preventDefault()},true);" +
  "d.addEventListener('click',function(e){var t=e.target,b=t&&t.closest&&t.closest('button');if(!b||h())return;" +
  "var o=d.querySelector('[data-early-click]');if(o)o.removeAttribute('data-early-click');b.setAttribute('data-early-click','')},true);" +
  'function go(){if(started)return;started=1;' +
  "(s.getAttribute('data-preload')||'').split(' ').forEach(function(u){if(!u)return;" +
  "var l=d.createElement('link');l.rel='modulepreload';l.crossOrigin='';l.href=u;d.head.appendChild(l)});" +
  "var e=d.createElement('script');e.type='module';e.crossOrigin='';e.src=s.getAttribute('data-entry');d.head.appendChild(e)}" +
  'function afterFrame(f){requestAnimationFrame(function(){setTimeout(f,0)})}' +
  "if(d.visibilityState!=='visible')go();" +
  "else if(P&&(P.supportedEntryTypes||[]).indexOf('paint')>=0){" +
  "new P(function(list,o){if(list.getEntriesByName('first-contentful-paint').length){o.disconnect();go()}}).observe({type:'paint',buffered:true});" +
  'afterFrame(function(){setTimeout(go,1000)})}' +
  'else afterFrame(go)})(document.currentScript)';

/** `value` as the text of a double-quoted HTML attribute. */
export function attributeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

/** The script element landing.html carries instead of Vite's module script and modulepreload links. */
export function bootScriptTag(entry: string, preloads: readonly string[]): string {
  return `<script data-entry="${attributeText(entry)}" data-preload="${attributeText(preloads.join(' '))}">${BOOT_SCRIPT}</script>`;
}

/**
 * `html` (Vite's index.html, or a page made from it) with its one module script and every
 * modulepreload link replaced by the boot script, which asks for the same modules, in the same
 * order, once the page is painted. Throws unless there is exactly one module script: a build
 * whose HTML this does not understand must fail, not ship a page that loads nothing.
 */
export function withBootScript(html: string): string {
  const entries = [...html.matchAll(/<script type="module" crossorigin src="([^"]+)"><\/script>/g)];
  if (entries.length !== 1) throw new Error(`expected one module script in the page's HTML, found ${entries.length}`);
  const entry = entries[0]!;
  const preloadLinks = [...html.matchAll(/[ \t]*<link rel="modulepreload" crossorigin href="([^"]+)">\n?/g)];
  return preloadLinks
    .reduce((page, [preloadLink]) => page.replace(preloadLink, ''), html)
    .replace(entry[0], () =>
      bootScriptTag(
        entry[1]!,
        preloadLinks.map(([, href]) => href!),
      ),
    );
}
