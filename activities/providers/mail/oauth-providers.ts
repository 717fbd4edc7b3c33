/**
 * The OAuth mailbox providers: their SMTP and IMAP
 * servers, the scopes a mailbox needs, and the default endpoints of the service's OAuth client
 * (overridden by the OAUTH_<PROVIDER>_* variables, apps/shared/config.ts). One place for all of it.
 */
export type OAuthProviderKey = 'google' | 'microsoft';

export interface ProviderServers {
  smtp: { host: string; port: number; secure: boolean };
  imap: { host: string; port: number; secure: boolean };
}

export const OAUTH_PROVIDER_SERVERS: Record<OAuthProviderKey, ProviderServers> = {
  google: { smtp: { host: 'smtp.gmail.com', port: 465, secure: true }, imap: { host: 'imap.gmail.com', port: 993, secure: true } },
  microsoft: { smtp: { host: 'smtp.office365.com', port: 587, secure: false }, imap: { host: 'outlook.office365.com', port: 993, secure: true } },
};

/** What the authorization request asks for: the mail scopes, the ID token's e-mail, and a refresh token. */
export const OAUTH_SCOPES: Record<OAuthProviderKey, string> = {
  google: 'openid email https://mail.google.com/',
  microsoft: 'openid email offline_access https://outlook.office.com/SMTP.Send https://outlook.office.com/IMAP.AccessAsUser.All',
};

/**
 * Extra authorization parameters. Always a screen at the provider, so that whoever opens a link sees
 * which account is being connected, even with a single signed-in session and consent given before:
 * select_account (the account chooser) for both, and for Google consent as well, which it needs to issue
 * a refresh token again (with access_type=offline).
 */
export const OAUTH_EXTRA_PARAMS: Record<OAuthProviderKey, Record<string, string>> = {
  google: { access_type: 'offline', prompt: 'consent select_account' },
  microsoft: { prompt: 'select_account' },
};

export const OAUTH_DEFAULT_ENDPOINTS: Record<OAuthProviderKey, { authorizeUrl: string; tokenUrl: string }> = {
  google: { authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth', tokenUrl: 'https://oauth2.googleapis.com/token' },
  microsoft: {
    authorizeUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
  },
};

/** A provider's client as configured: id, secret and endpoints. */
export interface OAuthClientConfig {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
}
