import { buildWeb } from './build-web.js';
import { bundleApiHandler } from './bundle-api-handler.js';

/** `npm run build`: the web app for S3/CloudFront and the API bundle (also used by `npm start`). */
const started = Date.now();
await buildWeb();
const { bytes } = await bundleApiHandler({ outfile: 'dist/api/handler.mjs' });
console.log(
  `built web/dist and dist/api/handler.mjs (${(bytes / 1024).toFixed(0)} KiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
