import { createHandler } from '../../../functions/api/create-handler.js';
import { readFunctionConfig } from '../../../functions/api/function-config.js';
import { leakingRetriever } from './leaking-retriever.js';

/** The API handler with the leaking retriever, bundled and run like the real one (chat-trust). */
export const handler = createHandler(readFunctionConfig(process.env), {
  retriever: leakingRetriever,
});
