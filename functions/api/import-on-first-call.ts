/**
 * A route group that stands in for the one `load` makes, importing its module on the first call
 * to any of its handlers: what a chat never calls (knowledge capture, the mail draft, the
 * hand-off, insights, known issues, attachments) is neither parsed nor run at a cold start: the
 * bundle puts what only an `import()` reaches in chunks of their own (ADR 0034). The route table
 * stays complete at init, so which paths, methods and callers exist does not depend on it.
 *
 * A group is either an object of handlers or one handler (the hand-off); both are forwarded.
 * A failed import is not remembered: the next call tries again.
 *
 * @example
 * const knownIssues = importOnFirstCall(async () =>
 *   (await import('./occasional-route-groups.js')).createKnownIssueRoutes(context, dependencies),
 * );
 * await knownIssues.list(request); // imports the module, then lists
 */
export function importOnFirstCall<Group extends object>(load: () => Promise<Group>): Group {
  let loading: Promise<Group> | undefined;
  const loaded = (): Promise<Group> => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  type Handler = (...args: unknown[]) => Promise<unknown>;
  // A function as the target, so the stand-in is callable when the group is one handler.
  return new Proxy(() => undefined, {
    get: (_target, name) =>
      // Not a thenable: `await` on the stand-in must not start the import.
      name === 'then'
        ? undefined
        : async (...args: unknown[]) => {
            const group = (await loaded()) as Record<PropertyKey, Handler | undefined>;
            const handler = group[name];
            if (!handler) throw new TypeError(`the route group has no handler ${String(name)}`);
            return handler.apply(group, args);
          },
    apply: async (_target, _this, args: unknown[]) =>
      ((await loaded()) as unknown as Handler)(...args),
  }) as unknown as Group;
}
