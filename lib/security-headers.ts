/**
 * The security headers of every response the site sends — web app and `/api/*` alike. One
 * definition for both places that send them: CloudFront's response-headers policy
 * (`lib/constructs/web-hosting.ts`) and the local server of `npm start`
 * (`local/function-url/start-function-url-server.ts`), so browser tests run the web app under
 * the CSP staff get in AWS. Plain values only (no CDK imports): the local server imports it too.
 */

export interface SecurityHeaderOptions {
  /**
   * Origins besides the site's own the page may `fetch`: in AWS the Cognito endpoints (OIDC
   * discovery and JWKS on cognito-idp, the token endpoint on the hosted domain); none locally.
   */
  readonly connectSources: readonly string[];
  /** Origins forms may post to besides the site: the Cognito hosted domain (sign-out). */
  readonly formActions: readonly string[];
}

/** The Content-Security-Policy header value. */
export function contentSecurityPolicy(options: SecurityHeaderOptions): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // React and the markdown renderer set style attributes.
    "style-src 'self' 'unsafe-inline'",
    // blob: the attachments the page fetched with the caller's token (an <img> cannot send it).
    "img-src 'self' data: blob:",
    "font-src 'self'",
    ['connect-src', "'self'", ...options.connectSources].join(' '),
    ['form-action', "'self'", ...options.formActions].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "object-src 'none'",
  ].join('; ');
}

/** Strict-Transport-Security: a year, subdomains included. */
export const STRICT_TRANSPORT_SECURITY = {
  maxAgeSeconds: 365 * 24 * 60 * 60,
  includeSubdomains: true,
} as const;

/** No framing at all (the CSP's `frame-ancestors 'none'` for browsers that predate it). */
export const FRAME_OPTIONS = 'DENY';

export const REFERRER_POLICY = 'strict-origin-when-cross-origin';

/**
 * The headers as they go on the wire. `https: false` (the local server on http://localhost)
 * leaves out Strict-Transport-Security: browsers ignore it over plain HTTP (RFC 6797 §8.1), and
 * if a developer ever served localhost over HTTPS it would pin every local port to HTTPS for a
 * year.
 *
 * @example
 * response.setHeader('content-security-policy', securityHeaders({ connectSources: [], formActions: [], https: false })['content-security-policy']);
 */
export function securityHeaders(
  options: SecurityHeaderOptions & { readonly https: boolean },
): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(options),
    ...(options.https
      ? {
          'strict-transport-security': `max-age=${STRICT_TRANSPORT_SECURITY.maxAgeSeconds}${
            STRICT_TRANSPORT_SECURITY.includeSubdomains ? '; includeSubDomains' : ''
          }`,
        }
      : {}),
    'x-frame-options': FRAME_OPTIONS,
    'x-content-type-options': 'nosniff',
    'referrer-policy': REFERRER_POLICY,
  };
}
