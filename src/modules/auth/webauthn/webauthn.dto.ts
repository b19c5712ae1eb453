import { IsObject, IsString, MaxLength, MinLength } from 'class-validator';
import { MfaTicketDto } from '../mfa/dto/mfa-login.dto';

/**
 * WebAuthnAuthenticateRequest: the `challenge` of the options this server issued and the
 * authenticator's response (`PublicKeyCredential` as JSON: `{id, rawId, type, response: {…}}`).
 */
export class WebAuthnAuthenticateDto {
  /** The `challenge` of the options (base64url). */
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  challenge: string;

  /** The credential JSON returned by `navigator.credentials.get()` / `.create()`. */
  @IsObject()
  response: Record<string, unknown>;
}

/** WebAuthnMfaRequest: the assertion for the ticket of an MFA-required login. */
export class WebAuthnMfaDto extends MfaTicketDto {
  /** The `challenge` of the options issued for this ticket. */
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  challenge: string;

  /** The credential JSON returned by `navigator.credentials.get()`. */
  @IsObject()
  response: Record<string, unknown>;
}

/** Registers the credential created with the registration options. */
export class RegisterWebAuthnCredentialDto extends WebAuthnAuthenticateDto {
  /** A name to recognise it by (1–100 characters), e.g. "YubiKey" or "Laptop". */
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;
}

export class RenameWebAuthnCredentialDto {
  /** 1–100 characters. */
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;
}
