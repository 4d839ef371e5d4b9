/**
 * The part of `oidc-provider` (ESM, no bundled types) the local OpenID provider uses; its
 * configuration is checked by the provider itself at construction.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    Grant: new (properties: {
      clientId: string;
      accountId: string;
    }) => {
      addOIDCScope(scope: string): void;
      addOIDCClaims(claims: readonly string[]): void;
      addResourceScope(resource: string, scope: string): void;
      save(): Promise<string>;
    };
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
