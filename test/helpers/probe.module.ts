import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsEmail,
  IsInt,
  IsString,
  Max,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { DataSource } from 'typeorm';
import { Auth, CurrentCaller, Public } from '../../src/common/auth/auth.decorator';
import type { Caller } from '../../src/common/auth/caller';

class ProbeNested {
  @IsString() @MaxLength(5) name: string;
}

class ProbeBody {
  @IsEmail() email: string;
  @IsInt() @Max(10) count: number;
  @IsDefined() @ValidateNested() @Type(() => ProbeNested) nested: ProbeNested;
}

/** Test-only routes that exercise the cross-cutting plumbing (never part of the app). */
@Controller('__probe')
class ProbeController {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @Post('echo')
  @Public()
  echo(@Body() body: ProbeBody): ProbeBody {
    return body;
  }

  @Get('boom')
  @Public()
  boom(): never {
    throw new Error('SELECT password_hash FROM users WHERE secret_column = 1 exploded');
  }

  @Get('sql')
  @Public()
  async sql(): Promise<unknown> {
    return this.db.query('SELECT * FROM table_that_does_not_exist_xyz');
  }

  @Get('slow')
  @Public()
  async slow(): Promise<{ done: true }> {
    await new Promise((r) => setTimeout(r, 400));
    return { done: true };
  }

  @Get('user')
  @Auth({ kind: 'user' })
  user(@CurrentCaller() caller: Caller): Caller {
    return caller;
  }

  @Get('admin')
  @Auth({ kind: 'admin', acl: 'audit_log:view' })
  admin(@CurrentCaller() caller: Caller): Caller {
    return caller;
  }

  // Deliberately undecorated: default deny must refuse it.
  @Get('forgotten')
  forgotten(): string {
    return 'should never be served';
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
