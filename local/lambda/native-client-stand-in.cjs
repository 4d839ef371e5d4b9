// Preloaded (`node --require`) into every local execution environment before aws-lambda-ric.
//
// aws-lambda-ric 4.x always loads its native addon `rapid-client.node`, even when
// AWS_LAMBDA_NODEJS_USE_ALTERNATIVE_CLIENT_1=true routes the calls a streaming handler makes
// (next invocation, streamed response, init error) over node:http. The addon is built by the
// package's install script, which this project never runs (no compiler, no network for curl).
// This stand-in answers the `require('./rapid-client.node')` instead; its methods are only used
// by buffered (non-streaming) handlers, which the API function is not, so they fail loudly.
const Module = require('node:module');

const NATIVE_CLIENT = './rapid-client.node';
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveNativeClient(request, parent, ...rest) {
  if (request === NATIVE_CLIENT && parent?.filename?.includes('aws-lambda-ric')) return __filename;
  return resolveFilename.call(this, request, parent, ...rest);
};

function unavailable(call) {
  return () => {
    throw new Error(
      `aws-lambda-ric's native client (${call}) is not built locally; only response-streaming handlers run here`,
    );
  };
}

// When required as the stand-in (not as the preload), export what the addon exports.
module.exports = {
  next: unavailable('next'),
  done: unavailable('done'),
  error: unavailable('error'),
};
