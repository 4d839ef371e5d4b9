import * as z from 'zod';

/**
 * zod's settings for the page, imported first by `main.tsx` so they hold before any module builds
 * a schema. `jitless`: zod otherwise probes whether it may compile parsers with `new Function('')`
 * when the first object schema is created; the page's CSP (`script-src 'self'`, no
 * `'unsafe-eval'`) blocks it, and although zod catches the error and falls back, Chromium still
 * reports a `securitypolicyviolation` on every load — a false alarm for a deployment collecting
 * CSP reports. The interpreted parsers are what the page got under the CSP anyway.
 */
z.config({ jitless: true });
