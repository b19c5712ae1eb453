// Values shared by the request-body examples Swagger UI pre-fills ("Try it out"). One set of
// them, so that the examples read as one story (Ada registers with this password, creates this
// guild, …) and test/openapi-examples.e2e-spec.ts can swap the ids for real ones.

/** Named request bodies for `@ApiBody({ type, examples })`; the first one is pre-filled. */
export type BodyExamples = Record<string, { summary: string; description?: string; value: object }>;

export const EXAMPLE = {
  /** The password of every example that registers, logs in or re-authenticates. */
  password: 'correct-horse-battery-staple',
  newPassword: 'tr0ub4dor-and-3-more-words',
  email: 'ada@example.com',
  newEmail: 'ada.lovelace@example.org',
  username: 'ada_lovelace',
  globalName: 'Ada Lovelace',
  dateOfBirth: '1990-04-12',
  phone: '+15555550123',
  /** Snowflake ids, as strings (64-bit integers do not survive JavaScript clients as numbers). */
  userId: '1302154871264051200',
  otherUserId: '1302160418726150144',
  guildId: '1302155030349742080',
  channelId: '1302155030353936384',
  roleId: '1302157766466207744',
  webhookId: '1302155213489082368',
  applicationId: '1302155402916429824',
  webauthnCredentialId: '1302158590227496960',
  /** A 1×1 PNG: the smallest image every Base64ImageType field accepts. */
  pngDataUri:
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  redirectUri: 'https://app.example.com/callback',
  /** Single-use tokens and tickets the server hands out (e-mailed, or in an earlier answer). */
  emailToken: '2bGgFlJdtCQnu0a4vH9HUF9EZvkPNS7GBjH6YAsOh8E',
  mfaTicket: 'OovIDtGZI4S16gjXtKkzzRqpEzzKkGRVBo7TnpO86Z4',
  ipTicket: '8g1p-YWxLJ5taL7HAzzX8B6ADQYWAW-mWwF27dnCWxg',
  handoffCode: 'K7PD-3QXM',
  totpCode: '492039',
  backupCode: 'a1b2-c3d4',
  smsCode: '318402',
  sessionToken: 'affttfTZslnZkgm9DeDD-Y5pOuIMtEEh5i5XBmhItqQ',
  /** A session's `id_hash` (base64url SHA-256 of its token). */
  sessionIdHash: 'LXEWQrcmsEQBYnyp-6wy9chTD7GQPMTbAiWHF5IaSIE',
  ssoState: 'Q8Kn13qVxZ7h-WqgWLtjErarFUKiFf5BpYrypAyWRFE',
  ssoCode: 'SplxlOBeZQQYbYS6WxSbIA',
  oauthCode: 't43M3kx6fwYt-K73cnzeQuTH-B2EjHbJTokF2HrqXjg',
  accessToken: 'U1pJ3tOl305j6Feauu7PnU5DR8IgziO8zoYtuVD3Zj0',
  refreshToken: 'dwz_bD-u2OhVqB5BWVXw2Uqim0puXom_Bi21vT2o6IM',
  clientSecret: '_tDKaGOjJQvFlYYE9YFaRQpFu0bG8D8B6wjEVpHcgyw',
  webhookToken: '3bSvTqz3XSlSc2xAvaQ9XOaabRsHKxPc2uZwJVAJ5wppk1z2iHYkBT97Ju89sBT4',
  pkceVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
  pkceChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
} as const;

// A real WebAuthn exchange (a software authenticator, origin https://app.example.com), so that
// the examples have the exact shape browsers send; the server answers it with a 4xx about the
// challenge or the credential, never about its form.

/** `navigator.credentials.create()` as JSON (a registration). */
export const WEBAUTHN_REGISTRATION = {
  challenge: 'fLp6VqWZ3y4mB7kQ0tX2rA9sD1eH5gJ8nC3uV6wY0zQ',
  response: {
    id: 'nTYrlCS0FbDN_nmF42wYluC-M_yD5sPSKcTaoBNTwN0',
    rawId: 'nTYrlCS0FbDN_nmF42wYluC-M_yD5sPSKcTaoBNTwN0',
    type: 'public-key',
    response: {
      clientDataJSON:
        'eyJjaGFsbGVuZ2UiOiJmTHA2VnFXWjN5NG1CN2tRMHRYMnJBOXNEMWVINWdKOG5DM3VWNndZMHpRIiwib3JpZ2luIjoiaHR0cHM6Ly9hcHAuZXhhbXBsZS5jb20iLCJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQ',
      attestationObject:
        'o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikKAWYKbEFHwTvAxGQZ8DOCeBSd2EokPjgh08djs4a4DRdAAAAAE5JRC1BVVRILTMxNDE1OTIAIJ02K5QktBWwzf55heNsGJbgvjP8g-bD0inE2qATU8DdpQECAyYgASFYIKeRzrdFIaDbQW8kdY4KbZZbpsrt9lGvO7BUd2Xw7XENIlggnqiy_bK6YACwzlDGahOcqwE68wkqiqgzt5ndMFv56wQ',
      transports: ['usb'],
    },
    clientExtensionResults: { credProps: { rk: true } },
    authenticatorAttachment: 'cross-platform',
  },
};

/** `navigator.credentials.get()` as JSON (an assertion). */
export const WEBAUTHN_ASSERTION = {
  challenge: 'q3Xr8Tn0Lb6VdM2sYk9HwE4aZc1PfU7gJ5oR0iN3yB8',
  response: {
    id: 'nTYrlCS0FbDN_nmF42wYluC-M_yD5sPSKcTaoBNTwN0',
    rawId: 'nTYrlCS0FbDN_nmF42wYluC-M_yD5sPSKcTaoBNTwN0',
    type: 'public-key',
    response: {
      clientDataJSON:
        'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoicTNYcjhUbjBMYjZWZE0yc1lrOUh3RTRhWmMxUGZVN2dKNW9SMGlOM3lCOCIsIm9yaWdpbiI6Imh0dHBzOi8vYXBwLmV4YW1wbGUuY29tIiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQ',
      authenticatorData: 'KAWYKbEFHwTvAxGQZ8DOCeBSd2EokPjgh08djs4a4DQdAAAAAQ',
      signature:
        'MEUCIQDYd2TbV6SM-r63jLH4tnRajBEBn6DhLfTogDxX49dKZQIgEcXsR1Ck0bVXzk4VVmoDcIWLcXfTFCw-85d-51YWx8A',
      userHandle: 'MTMwMjE1NDg3MTI2NDA1MTIwMA',
    },
    clientExtensionResults: {},
    authenticatorAttachment: 'cross-platform',
  },
};
