// Applies the @nestjs/swagger CLI plugin under ts-jest, so Swagger schemas in tests match the build.
const plugin = require('@nestjs/swagger/plugin');

module.exports.name = 'nestjs-swagger-plugin';
module.exports.version = 1; // bump to invalidate ts-jest's cache when options change
module.exports.factory = (compiler) =>
  plugin.before(
    {
      classValidatorShim: true,
      introspectComments: true,
      dtoFileNameSuffix: ['.dto.ts', '.response.ts', '.entity.ts'],
    },
    compiler.program,
  );
