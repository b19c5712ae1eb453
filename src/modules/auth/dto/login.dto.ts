import { IsEmail, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

export class LoginDto {
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  @MaxLength(254)
  email: string;

  @IsString()
  @MinLength(1)
  @MaxLength(256)
  password: string;

  /** Guild invite to join after login (accepted, not used yet). */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  invite_code?: string | null;
}
