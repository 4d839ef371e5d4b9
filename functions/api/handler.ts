import { createHandler } from './create-handler.js';
import { readFunctionConfig } from './function-config.js';

/** The Lambda entry point behind the Function URL (RESPONSE_STREAM): every `/api/*` route. */
export const handler = createHandler(readFunctionConfig(process.env));
