import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../../audit/audit.module';
import { AdminApiKeyEntity } from './admin-api-key.entity';
import { AdminApiKeysController } from './admin-api-keys.controller';
import { AdminApiKeysService } from './admin-api-keys.service';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { UsersModule } from '../../users/users.module';

/** Admin API keys and the `Admin <key>` credential resolver. */
@Module({
  imports: [TypeOrmModule.forFeature([AdminApiKeyEntity]), AuditModule, UsersModule],
  controllers: [AdminApiKeysController],
  providers: [AdminApiKeysService, AdminBootstrapService],
  exports: [AdminApiKeysService, AdminBootstrapService],
})
export class AdminApiKeysModule {}
