import * as z from 'zod';

/**
 * Settings read at runtime from `/config.json`, so one build serves the local stack and every
 * deployed environment (the CDK stack writes its own file next to the assets).
 */
export const runtimeConfigSchema = z.object({
  apiBase: z.string().default('/api'),
  authMode: z.enum(['local', 'cognito', 'oidc']).default('local'),
  cognito: z
    .object({
      authority: z.string().url(),
      clientId: z.string().min(1),
      redirectUri: z.string().url(),
      logoutUri: z.string().url(),
      /** Hosted UI domain (https://…): Cognito logs out at `/logout`, not the OIDC end-session. */
      domain: z.string().url(),
    })
    .optional(),
  /** Any OpenID Connect issuer (ADR 0028), or the stack's Cognito pool federating SAML. */
  oidc: z
    .object({
      authority: z.string().url(),
      clientId: z.string().min(1),
      redirectUri: z.string().url(),
      logoutUri: z.string().url(),
      scope: z.string().min(1).default('openid email profile'),
      extraQueryParams: z.record(z.string(), z.string()).optional(),
      /** Set when the issuer is a Cognito pool: it signs out at its hosted UI's `/logout`. */
      cognitoDomain: z.string().url().optional(),
    })
    .optional(),
});
export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;

export async function loadRuntimeConfig(fetchConfig: typeof fetch = fetch): Promise<RuntimeConfig> {
  const response = await fetchConfig('/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  const config = runtimeConfigSchema.parse(await response.json());
  if (config.authMode === 'cognito' && !config.cognito) {
    throw new Error('config.json: authMode "cognito" needs a "cognito" section');
  }
  if (config.authMode === 'oidc' && !config.oidc) {
    throw new Error('config.json: authMode "oidc" needs an "oidc" section');
  }
  // Trailing slashes would produce `//conversations` and miss the CloudFront behaviour.
  return { ...config, apiBase: config.apiBase.replace(/\/+$/, '') };
}
