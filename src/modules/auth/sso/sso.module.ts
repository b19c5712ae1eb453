import { Module } from '@nestjs/common';

/** Single sign-on against one OpenID Connect issuer. */
@Module({})
export class SsoModule {}
