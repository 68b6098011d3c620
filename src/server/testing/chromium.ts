// Debian's Chromium and the flags it runs with for the end-to-end journeys and the Lighthouse
// bench: headless, no sandbox (root in CI), and no network of its own.
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
