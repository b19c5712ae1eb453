import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { parseSnowflake } from './snowflake';

/** Validates a snowflake path parameter; anything else is the resource's 404 (it cannot exist). */
@Injectable()
export class ParseSnowflakePipe implements PipeTransform<unknown, string> {
  constructor(private readonly notFound: ErrorCode) {}

  transform(value: unknown): string {
    const id = parseSnowflake(value);
    if (id === null) throw new ApiError(this.notFound);
    return id;
  }
}
