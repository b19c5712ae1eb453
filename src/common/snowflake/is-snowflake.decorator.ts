import { ValidateBy, type ValidationOptions } from 'class-validator';
import { parseSnowflake } from './snowflake';

/** A snowflake id given as a string of digits or a safe integer (ARCHITECTURE.md §5). */
export function IsSnowflake(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isSnowflake',
      validator: {
        validate: (value: unknown) => parseSnowflake(value) !== null,
        defaultMessage: () => '$property must be a snowflake id',
      },
    },
    options,
  );
}
