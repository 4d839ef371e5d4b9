import { describe, expect, it } from 'vitest';
import { desksForRoles, rolesFromClaims } from '../../functions/api/caller-roles.js';
import { createOwnerResolver } from '../../functions/api/resolve-owner.js';
import { readFunctionConfig } from '../../functions/settings/function-settings.js';

const deskRoles = [
  { name: 'HRDeskStaff', value: 'hr' },
  { name: 'HRLead', value: 'hr' },
  { name: 'FacilitiesStaff', value: 'facilities' },
];

describe('desksForRoles', () => {
  it('grants desk all to everyone and each mapped desk once', () => {
    expect(desksForRoles([], deskRoles)).toEqual(['all']);
    expect(desksForRoles(['Unrelated'], deskRoles)).toEqual(['all']);
    expect(desksForRoles(['HRDeskStaff', 'HRLead'], deskRoles)).toEqual(['all', 'hr']);
    expect(desksForRoles(['FacilitiesStaff', 'HRDeskStaff'], deskRoles)).toEqual([
      'all',
      'hr',
      'facilities',
    ]);
  });
});

describe('rolesFromClaims', () => {
  it.each([
    ['an array claim', { roles: ['A', 'B', 3, ''] }, 'roles', ['A', 'B']],
    ['a claim named with a colon', { 'cognito:groups': ['leads'] }, 'cognito:groups', ['leads']],
    ['a nested path', { realm_access: { roles: ['editor'] } }, 'realm_access.roles', ['editor']],
    ['a space-separated string', { groups: 'A B,C' }, 'groups', ['A', 'B', 'C']],
    ['an empty array', { roles: [] }, 'roles', []],
  ])('reads %s', (_name, claims, claim, roles) => {
    expect(rolesFromClaims(claims, claim)).toEqual(roles);
  });

  it.each([
    [{}, 'roles'],
    [{ roles: { nested: true } }, 'roles'],
    [{ realm_access: 'x' }, 'realm_access.roles'],
  ])('answers undefined for a missing or unusable claim %j', (claims, claim) => {
    expect(rolesFromClaims(claims, claim)).toBeUndefined();
  });
});

describe('OIDC settings', () => {
  const required = {
    CONVERSATIONS_TABLE: 'Conversations',
    TURNS_TABLE: 'Turns',
    KNOWLEDGE_BASE_ID: 'KB',
    MODEL_ID: 'model',
  };
  const oidc = { ...required, AUTH_MODE: 'oidc', OIDC_AUDIENCE: 'client' };

  it('reads the issuer, audiences, role claim and desk roles', () => {
    const { auth } = readFunctionConfig({
      ...oidc,
      OIDC_ISSUER: 'https://login.example.com/tenant/v2.0',
      OIDC_AUDIENCE: 'client, suite',
      OIDC_DESK_ROLES: 'HRDeskStaff=hr, FacilitiesStaff=facilities',
    });
    expect(auth).toMatchObject({
      mode: 'oidc',
      oidcIssuer: 'https://login.example.com/tenant/v2.0',
      oidcAudience: ['client', 'suite'],
      roleClaim: 'roles',
      deskRoles: [
        { name: 'HRDeskStaff', value: 'hr' },
        { name: 'FacilitiesStaff', value: 'facilities' },
      ],
    });
    expect(
      readFunctionConfig({ ...oidc, OIDC_ISSUER: 'http://127.0.0.1:4100' }).auth.oidcIssuer,
    ).toBe('http://127.0.0.1:4100');
  });

  it.each([
    [{ OIDC_ISSUER: undefined }, /OIDC_ISSUER/],
    [{ OIDC_ISSUER: 'login.example.com' }, /OIDC_ISSUER/],
    [{ OIDC_ISSUER: 'http://login.example.com' }, /OIDC_ISSUER/],
    [{ OIDC_ISSUER: 'https://login.example.com/?tenant=1' }, /OIDC_ISSUER/],
    [{ OIDC_ISSUER: 'https://login.example.com', OIDC_AUDIENCE: '' }, /OIDC_AUDIENCE/],
    [
      { OIDC_ISSUER: 'https://login.example.com', OIDC_DESK_ROLES: 'HRDeskStaff' },
      /OIDC_DESK_ROLES/,
    ],
    [
      { OIDC_ISSUER: 'https://login.example.com', OIDC_DESK_ROLES: 'HRDeskStaff=h r' },
      /OIDC_DESK_ROLES/,
    ],
  ])('refuses %j at start-up naming the setting', (settings, message) => {
    expect(() => readFunctionConfig({ ...oidc, ...settings })).toThrow(message);
  });
});

describe('local mode roles', () => {
  const resolve = createOwnerResolver({
    mode: 'local',
    tenantId: 'default',
    knowledgeEditors: ['editor'],
    serviceDeskLeads: ['lead'],
    devUserRoles: [
      { name: 'hr-staff', value: 'HRDeskStaff' },
      { name: 'hr-lead', value: 'HRDeskStaff' },
      { name: 'hr-lead', value: 'service-desk-leads' },
    ],
    roles: {
      editorRoles: ['knowledge-editors'],
      leadRoles: ['service-desk-leads'],
      deskRoles,
    },
  });

  it('gives a dev user the roles and desks of DEV_USER_ROLES', async () => {
    expect(await resolve({ 'x-dev-user': 'hr-staff' })).toMatchObject({
      roles: ['HRDeskStaff'],
      desks: ['all', 'hr'],
      displayName: 'hr-staff',
      canPublishKnowledge: false,
      canViewInsights: false,
    });
    expect(await resolve({ 'x-dev-user': 'hr-lead' })).toMatchObject({
      desks: ['all', 'hr'],
      canViewInsights: true,
    });
    expect(await resolve({ 'x-dev-user': 'it-staff' })).toMatchObject({
      roles: [],
      desks: ['all'],
      canPublishKnowledge: false,
    });
    expect(await resolve({ 'x-dev-user': 'editor' })).toMatchObject({ canPublishKnowledge: true });
  });
});

describe('token mode roles', () => {
  const resolverFor = (claims: Record<string, unknown>, roleClaimRequired: boolean) =>
    createOwnerResolver({
      mode: 'token',
      tenantId: 'default',
      verifier: { verify: async () => ({ sub: 'user-1', ...claims }) },
      roleClaim: roleClaimRequired ? 'roles' : 'cognito:groups',
      roleClaimRequired,
      roles: { editorRoles: ['Editor'], leadRoles: ['Lead'], deskRoles },
    });
  const token = { 'x-auth-token': 'Bearer any' };

  it('reads roles, desks and the display name from the claims', async () => {
    const caller = await resolverFor(
      { roles: ['Lead', 'HRDeskStaff'], name: ' 山田 花子 ' },
      true,
    )(token);
    expect(caller).toMatchObject({
      owner: { tenantId: 'default', userId: 'user-1' },
      roles: ['Lead', 'HRDeskStaff'],
      desks: ['all', 'hr'],
      canViewInsights: true,
      canPublishKnowledge: false,
      displayName: '山田 花子',
    });
    expect((await resolverFor({ roles: ['Editor'] }, true)(token)).displayName).toBe('user-1');
  });

  it('refuses a token without the role claim where the issuer must name every user (no_role_claim)', async () => {
    await expect(resolverFor({}, true)(token)).rejects.toMatchObject({
      code: 'no_role_claim',
      statusCode: 401,
    });
    // Cognito: a user in no group is plain staff.
    expect(await resolverFor({}, false)(token)).toMatchObject({ roles: [], desks: ['all'] });
  });
});
