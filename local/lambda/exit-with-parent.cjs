// Preloaded (`node --require`) into every local execution environment.
//
// The environment's stdin is a pipe from the process that runs the local stack, which never
// writes to it: end of file means that process is gone — even killed with SIGKILL, when none of
// its exit handlers ran — and an environment left behind would keep polling a Runtime API that no
// longer exists, or hold files open. Lambda never orphans an environment either.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
// Waiting for that end must not by itself keep the process alive.
process.stdin.unref();
