import { readFileSync } from 'node:fs';
import { parseScrubSettings } from '../functions/knowledge/personal-data-scrub.js';

/**
 * Lambda allows 4 KB for all of a function's environment variables together; the API function's
 * other variables take about 1.5 KB, so the settings get the rest with a margin.
 */
export const MAX_PERSONAL_DATA_SETTINGS_BYTES = 2048;

/**
 * The `personalDataSettings` deploy setting: the file `npm run import --scrub-settings` reads
 * (`{"patterns":[…],"dictionary":[…],"keep":[…]}`, ADR 0019), validated at synth and given to the
 * API function as compact JSON (`PERSONAL_DATA_SETTINGS`), so knowledge capture scrubs drafts with
 * the same patterns and dictionary the import used. A bad file stops the synth with its path and
 * the field at fault, not a function that fails at its first request.
 *
 * @throws Error naming the file when it is missing, not JSON, invalid, or too large for the
 *   function's environment.
 * @example
 * readPersonalDataSettings('config/scrub.json'); // '{"patterns":[{"kind":"employee_id",…}]}'
 */
export function readPersonalDataSettings(path: string): string {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`personalDataSettings: cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    parseScrubSettings(json);
  } catch (error) {
    throw new Error(`personalDataSettings: ${path}: ${(error as Error).message}`);
  }
  const compact = JSON.stringify(json);
  const bytes = Buffer.byteLength(compact, 'utf8');
  if (bytes > MAX_PERSONAL_DATA_SETTINGS_BYTES) {
    throw new Error(
      `personalDataSettings: ${path} is ${bytes} bytes as compact JSON; the function's environment holds at most ${MAX_PERSONAL_DATA_SETTINGS_BYTES} (Lambda's 4 KB for all variables). Keep the dictionary to the names patterns cannot find.`,
    );
  }
  return compact;
}
