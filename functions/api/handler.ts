import { readFunctionConfig } from '../settings/function-settings.js';
import { createHandler } from './create-handler.js';

/** The Lambda entry point behind the Function URL (RESPONSE_STREAM): every `/api/*` route. */
export const handler = createHandler(readFunctionConfig(process.env));
