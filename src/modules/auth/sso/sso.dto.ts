import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

/** SsoStartRequest. */
export class SsoStartDto {
  /**
   * Where the web app should go after the sign-in: a path, or a URL on the web app's own origin
   * (`WEB_APP_URL`). Defaults to the web app's root.
   */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  redirect_to?: string | null;
}

/** SsoCompleteRequest: what the issuer appended to the redirect URI. */
export class SsoCompleteDto {
  /** The authorization code. */
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  code: string;

  /** The `state` of the start answer. */
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  state: string;
}
