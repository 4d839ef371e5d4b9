import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodePng } from '../png-pixels.js';
import { drawErrorDialog } from './draw-error-dialog.js';
import { SCREENSHOT_FIXTURES } from './screenshot-registry.js';

/**
 * Writes the fixture screenshots the offline responder recognises (`screenshot-registry.ts`):
 * `node --import tsx local/bedrock/offline-responder/screenshots/generate-screenshots.ts`. The
 * output is deterministic; the PNGs are committed beside this script.
 */
for (const fixture of SCREENSHOT_FIXTURES) {
  const png = encodePng(drawErrorDialog(fixture.dialog));
  writeFileSync(join(import.meta.dirname, fixture.file), png);
  console.log(`${fixture.file}: ${png.length} bytes`);
}
