/**
 * Process B of the pipeline-overhead bench: the local Bedrock endpoint on its own, as Bedrock is
 * elsewhere in AWS. Scripts are queued here over IPC; the `onFragmentSent` hook records when each
 * marked fragment left (wall clock, comparable with the client's process), and the parent
 * collects those times after each round. Forked by `startBedrockProcess`.
 */
import type { ModelScript } from '../../../local/bedrock/model-script.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../../local/bedrock/start-local-bedrock-server.js';
import { firstMarker } from '../marked-answer.js';
import { toWallClock } from '../wall-clock.js';
import { processStatsHandlers } from './process-stats.js';
import { serveParent } from './serve-parent.js';

/** What process B announces once listening. */
export interface BedrockProcessReady {
  readonly endpoint: string;
  readonly knowledgeBaseId: string;
}

const sentAt = new Map<string, number>();
// Set before `ready` is announced, so requests (which only come after it) always find it.
let bedrock: LocalBedrockServer;

await serveParent<BedrockProcessReady>({
  start: async () => {
    bedrock = await startLocalBedrockServer({
      pacing: { minMs: 0, maxMs: 0 },
      onFragmentSent: (fragment, at) => {
        const marker = firstMarker(fragment);
        if (marker) sentAt.set(marker, toWallClock(at));
      },
    });
    return {
      ready: { endpoint: bedrock.runtimeEndpoint, knowledgeBaseId: bedrock.knowledgeBaseId },
      stop: () => bedrock.close(),
    };
  },
  handlers: {
    ...processStatsHandlers(),
    enqueueScripts: (scripts) => {
      for (const script of scripts as ModelScript[]) bedrock.enqueueScript(script);
      return null;
    },
    /** Marker → wall-clock send time of every fragment since the last call; forgets them. */
    takeSentAt: () => {
      const entries = [...sentAt];
      sentAt.clear();
      return entries;
    },
    /** The Retrieve and ConverseStream requests received since the last call; forgets them. */
    takeRequests: () => ({
      retrieve: bedrock.retrieveRequests.splice(0),
      converse: bedrock.converseRequests.splice(0),
    }),
  },
});
