import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseServiceDeskConfig } from '../../lib/config.js';
import { runtimeConfigSchema } from '../../web/src/config/load-runtime-config.js';
import { synthesizeServiceDesk } from './synthesize.js';

/**
 * Sign-in at the company's identity provider (issue #49, ADR 0028): an Entra-style OpenID
 * Connect issuer directly (no user pool), and SAML federated through the stack's pool. One
 * synthesis per configuration, several assertions on it.
 */

const entraIssuer = 'https://login.microsoftonline.com/00000000-1111-2222-3333-444444444444/v2.0';
const entra = {
  authIssuer: entraIssuer,
  authClientId: 'aaaabbbb-0000-1111-2222-ccccddddeeee',
  authScope: 'openid profile email api://aaaabbbb-0000-1111-2222-ccccddddeeee/access',
  authEditorRoles: 'KnowledgeEditor',
  authLeadRoles: 'ServiceDeskLead',
  authDeskRoles: 'HRDeskStaff=hr',
};

describe('sign-in settings', () => {
  it.each([
    [{ authIssuer: 'http://login.example.com/' }, /authIssuer must be an https URL/],
    [{ authIssuer: 'login.example.com' }, /authIssuer must be an https URL/],
    [{ authIssuer: entraIssuer }, /authClientId: authIssuer needs authClientId/],
    [{ ...entra, samlMetadataUrl: 'https://idp.example.com/metadata' }, /samlMetadataUrl/],
    [{ ...entra, allowedEmailDomains: 'example.co.jp' }, /allowedEmailDomains/],
    [{ authClientId: 'x' }, /authClientId belongs to authIssuer/],
    [{ authDeskRoles: 'HRDeskStaff' }, /authDeskRoles: must be <role value>=<desk> pairs/],
    [{ samlMetadataUrl: 'ftp://idp.example.com/metadata' }, /samlMetadataUrl must be an https URL/],
    [{ samlProviderName: 'a_b' }, /samlProviderName/],
  ])('refuses %j at synth, naming the setting', (context, message) => {
    expect(() => parseServiceDeskConfig({ account: '123456789012', ...context })).toThrow(message);
  });
});

describe('ServiceDeskStack with an Entra ID issuer', () => {
  const { template, webConfig } = synthesizeServiceDesk(entra);
  const api = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { AUTH_MODE: 'oidc' } } },
    }),
  );

  it('creates no user pool', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
  });

  it('has the function verify that issuer’s tokens for the client, with the role values', () => {
    expect(api).toHaveLength(1);
    expect(api[0]?.Properties.Environment.Variables).toMatchObject({
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: entraIssuer,
      OIDC_AUDIENCE: entra.authClientId,
      OIDC_ROLE_CLAIM: 'roles',
      OIDC_EDITOR_ROLES: 'KnowledgeEditor',
      OIDC_LEAD_ROLES: 'ServiceDeskLead',
      OIDC_DESK_ROLES: 'HRDeskStaff=hr',
    });
    expect(api[0]?.Properties.Environment.Variables).not.toHaveProperty('COGNITO_USER_POOL_ID');
  });

  it('lets the page fetch from the issuer (CSP) and signs in there with the API scope', () => {
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: {
          ContentSecurityPolicy: {
            ContentSecurityPolicy: Match.stringLikeRegexp(
              "connect-src 'self' https://login\\.microsoftonline\\.com;",
            ),
          },
        },
      },
    });
    expect(runtimeConfigSchema.parse(webConfig)).toMatchObject({
      authMode: 'oidc',
      oidc: { authority: entraIssuer, clientId: entra.authClientId, scope: entra.authScope },
    });
  });
});

describe('ServiceDeskStack federating SAML through its pool', () => {
  const { template, webConfig, nagFindings } = synthesizeServiceDesk({
    samlMetadataUrl:
      'https://login.microsoftonline.com/tenant/federationmetadata/2007-06/federationmetadata.xml',
    samlProviderName: 'EntraSAML',
    authDeskRoles: 'hr-desk=hr',
  });

  it('federates the provider with e-mail, name and groups mapped', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolIdentityProvider', {
      ProviderName: 'EntraSAML',
      ProviderType: 'SAML',
      ProviderDetails: Match.objectLike({
        MetadataURL: Match.stringLikeRegexp('federationmetadata\\.xml$'),
      }),
      AttributeMapping: {
        email: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
        name: 'http://schemas.microsoft.com/identity/claims/displayname',
        'custom:saml_groups': 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
      },
    });
  });

  it('offers the web client that provider only, and turns its groups into cognito:groups', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      ClientName: 'web',
      SupportedIdentityProviders: ['EntraSAML'],
    });
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      LambdaConfig: {
        PreTokenGenerationConfig: { LambdaVersion: 'V2_0', LambdaArn: Match.anyValue() },
      },
    });
    const [api] = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
      }),
    );
    expect(api?.Properties.Environment.Variables.OIDC_DESK_ROLES).toBe('hr-desk=hr');
  });

  it('sends the hosted UI straight to the provider, and signs out at the pool', () => {
    expect(runtimeConfigSchema.parse(webConfig)).toMatchObject({
      authMode: 'oidc',
      oidc: {
        extraQueryParams: { identity_provider: 'EntraSAML' },
        cognitoDomain: expect.stringMatching(/amazoncognito\.com$/),
      },
    });
    expect(nagFindings).toEqual([]);
  });
});
