import { CognitoJwtVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';
import { createHandler } from '../../../functions/api/create-handler.js';
import { readFunctionConfig } from '../../../functions/api/function-config.js';

const config = readFunctionConfig(process.env);
// The real verifier, with the test's signing key (TEST_JWKS) cached so it never fetches a JWKS.
const verifier = CognitoJwtVerifier.create({
  userPoolId: config.COGNITO_USER_POOL_ID ?? '',
  clientId: config.COGNITO_CLIENT_ID ?? '',
  tokenUse: 'access',
});
verifier.cacheJwks(JSON.parse(process.env.TEST_JWKS ?? '{}') as Jwks);

/** The API handler in cloud auth mode, bundled and run like the real one (cloud-auth). */
export const handler = createHandler(config, {
  verifier,
  retriever: { search: async () => [], fetchByIssueIds: async () => [] },
});
