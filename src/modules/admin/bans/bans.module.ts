import { Module } from '@nestjs/common';

/** IP, e-mail and phone bans (admin routes). */
@Module({})
export class BansModule {}
