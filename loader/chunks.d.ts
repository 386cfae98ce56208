// Generated at build time by vite.config.ts from the widget build: tag name (without `svc-`)
// -> hashed chunk file name, relative to loader.js.
declare module 'virtual:svc-widget-chunks' {
  const chunks: Record<string, string>;
  export default chunks;
  /** The install doctor's chunk (widgets/lib/doctor/), relative to loader.js. */
  export const doctor: string;
}
