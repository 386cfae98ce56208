// Debian's Chromium (Playwright's own browser download does not work here) and the switches both
// Playwright configs launch it with: no sandbox (root in CI), no GPU, and nothing that reaches out
// to the network on its own.
export const CHROMIUM_LAUNCH = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};
