// Bearer-token authentication: a static token table (like --token-auth-file) and a pluggable
// authenticator (a later issue validates EKS `k8s-aws-v1.` tokens through an STS emulator).

export type UserInfo = { readonly name: string; readonly groups: readonly string[] };

/** Resolves a bearer token to a user, or null when the token is not valid. */
export type TokenAuthenticator = (token: string) => Promise<UserInfo | null> | UserInfo | null;

export type AuthOptions = {
  /** Static tokens: token → user and groups (e.g. the reconciler's token → group `ec2-node-reconciler`). */
  readonly tokens?: Readonly<Record<string, { readonly user: string; readonly groups?: readonly string[] }>>;
  /** Consulted for tokens not in `tokens`. */
  readonly authenticate?: TokenAuthenticator;
  /** Requests without a token act as system:anonymous (the API server's default). @default true */
  readonly anonymous?: boolean;
};

/** Who a request acts as when no authentication is configured: a cluster admin. */
export const ADMIN: UserInfo = { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** `undefined` means 401. */
export async function authenticate(
  options: AuthOptions | undefined,
  authorization: string | undefined,
): Promise<UserInfo | undefined> {
  if (options === undefined) return ADMIN;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (match === null) {
    // A malformed Authorization header fails like a bad token; no header at all is anonymous.
    if (authorization !== undefined && authorization !== '') return undefined;
    return options.anonymous === false ? undefined : ANONYMOUS;
  }
  const token = match[1] ?? '';
  const known = options.tokens?.[token];
  if (known !== undefined) return withAuthenticated({ name: known.user, groups: known.groups ?? [] });
  if (options.authenticate !== undefined) {
    const user = await options.authenticate(token);
    if (user !== null) return withAuthenticated(user);
  }
  return undefined;
}

function withAuthenticated(user: UserInfo): UserInfo {
  return user.groups.includes('system:authenticated')
    ? user
    : { name: user.name, groups: [...user.groups, 'system:authenticated'] };
}
