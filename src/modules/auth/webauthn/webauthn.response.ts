/** WebAuthnCredentialResponse. */
export class WebAuthnCredentialResponse {
  id: string;
  name: string;
  created_at: string;
  /** When it last signed a login or re-authentication. */
  last_used_at: string | null;
}
