/**
 * The local OpenID provider's dev users (`AUTH_MODE=oidc npm start`): one per kind of caller the
 * app tells apart — plain IT staff, a knowledge editor, a service-desk lead, and a member of the
 * HR desk — with the role values a company's identity provider would put in their tokens.
 */
export interface DevAccount {
  /** What to type at the provider's sign-in form (any password). */
  readonly login: string;
  readonly name: string;
  readonly email: string;
  /** The `roles` claim's values. */
  readonly roles: readonly string[];
}

/** Every staff member holds this app role: an external issuer's token must name one (ADR 0028). */
export const STAFF_ROLE = 'ServiceDeskStaff';
/** The role that grants the HR desk (`OIDC_DESK_ROLES=HRDeskStaff=hr`). */
export const HR_DESK_ROLE = 'HRDeskStaff';

export const DEV_ACCOUNTS: readonly DevAccount[] = [
  { login: 'staff', name: 'Sato (IT desk)', email: 'staff@example.co.jp', roles: [STAFF_ROLE] },
  {
    login: 'editor',
    name: 'Suzuki (knowledge editor)',
    email: 'editor@example.co.jp',
    roles: [STAFF_ROLE, 'knowledge-editors'],
  },
  {
    login: 'lead',
    name: 'Takahashi (service-desk lead)',
    email: 'lead@example.co.jp',
    roles: [STAFF_ROLE, 'service-desk-leads'],
  },
  {
    login: 'hr-staff',
    name: 'Tanaka (HR desk)',
    email: 'hr-staff@example.co.jp',
    roles: [STAFF_ROLE, HR_DESK_ROLE],
  },
];

/** The function settings that give these roles their meaning (the defaults name the groups). */
export const DEV_ACCOUNT_FUNCTION_SETTINGS = {
  OIDC_ROLE_CLAIM: 'roles',
  OIDC_DESK_ROLES: `${HR_DESK_ROLE}=hr`,
} as const;
