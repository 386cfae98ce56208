// Generated at build time by vite.config.ts from the widget build: tag name (without `svc-`)
// -> the hash in its chunk's file name, `<name>-<hash>.js` next to loader.js (vite.config.ts).
declare module 'virtual:svc-widget-chunks' {
  const chunks: Record<string, string>;
  export default chunks;
  /** The hash of the install doctor's chunk (widgets/lib/doctor/), `doctor-<hash>.js`. */
  export const doctor: string;
}
