// Vite's client module types: `import css from './x.css?inline'` is the minified CSS text.
/// <reference types="vite/client" />
