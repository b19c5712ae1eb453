import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { PasswordService } from './password.service';
import { SessionEntity } from './session.entity';
import { SessionsService } from './sessions.service';

@Module({
  imports: [UsersModule, TypeOrmModule.forFeature([SessionEntity])],
  controllers: [AuthController],
  providers: [AuthService, PasswordService, SessionsService],
  exports: [PasswordService, SessionsService],
})
export class AuthModule {}
