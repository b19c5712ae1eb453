/**
 * Every code a field error of a 400 INVALID_FORM_BODY carries (`errors[].code`), and its default
 * message. Services throw `ApiError.field('email', FieldErrorCode.EmailAlreadyRegistered)`;
 * validation decorators name theirs with `{ context: { code: FieldErrorCode.UsernameInvalid } }`
 * and class-validator constraints map to the `BASE_TYPE_*` family in validation.ts.
 *
 * The strings are on the wire (clients and the e2e suites match them): add codes, never rename.
 */
export enum FieldErrorCode {
  // class-validator constraints, in the style of Discord's BASE_TYPE_* codes (validation.ts).
  BaseTypeRequired = 'BASE_TYPE_REQUIRED',
  BaseTypeString = 'BASE_TYPE_STRING',
  BaseTypeBoolean = 'BASE_TYPE_BOOLEAN',
  BaseTypeInteger = 'BASE_TYPE_INTEGER',
  BaseTypeNumber = 'BASE_TYPE_NUMBER',
  BaseTypeArray = 'BASE_TYPE_ARRAY',
  BaseTypeObject = 'BASE_TYPE_OBJECT',
  BaseTypeMinLength = 'BASE_TYPE_MIN_LENGTH',
  BaseTypeMaxLength = 'BASE_TYPE_MAX_LENGTH',
  BaseTypeChoices = 'BASE_TYPE_CHOICES',
  BaseTypeFormat = 'BASE_TYPE_FORMAT',
  BaseTypeSnowflake = 'BASE_TYPE_SNOWFLAKE',
  /** A constraint validation.ts does not map (a new decorator: map it there). */
  BaseTypeInvalid = 'BASE_TYPE_INVALID',
  NumberTypeMin = 'NUMBER_TYPE_MIN',
  NumberTypeMax = 'NUMBER_TYPE_MAX',
  UnknownField = 'UNKNOWN_FIELD',
  InvalidEmail = 'INVALID_EMAIL',
  InvalidUrl = 'INVALID_URL',
  UrlTypeInvalidUrl = 'URL_TYPE_INVALID_URL',
  UrlTypeInvalidScheme = 'URL_TYPE_INVALID_SCHEME',
  InvalidSnowflake = 'INVALID_SNOWFLAKE',
  // Generated from the constraint names before codes were listed here; kept as clients see them.
  InvalidIsLength = 'INVALID_IS_LENGTH',
  InvalidIsSnowflake = 'INVALID_IS_SNOWFLAKE',

  // Accounts and authentication.
  InvalidLogin = 'INVALID_LOGIN',
  ConsentRequired = 'CONSENT_REQUIRED',
  DateOfBirthInvalid = 'DATE_OF_BIRTH_INVALID',
  DateOfBirthUnderage = 'DATE_OF_BIRTH_UNDERAGE',
  EmailAlreadyRegistered = 'EMAIL_ALREADY_REGISTERED',
  EmailRequired = 'EMAIL_REQUIRED',
  PasswordLength = 'PASSWORD_LENGTH',
  PasswordRequired = 'PASSWORD_REQUIRED',
  PasswordDoesNotMatch = 'PASSWORD_DOES_NOT_MATCH',
  UsernameInvalid = 'USERNAME_INVALID',
  NameInvisible = 'NAME_INVISIBLE',
  UsernameTooManyUsers = 'USERNAME_TOO_MANY_USERS',
  DiscriminatorInvalid = 'DISCRIMINATOR_INVALID',
  DiscriminatorTaken = 'DISCRIMINATOR_TAKEN',

  // Images (data URIs).
  ImageInvalid = 'IMAGE_INVALID',
  ImageTooLarge = 'IMAGE_TOO_LARGE',

  // OAuth2 applications and consent.
  UnknownApplication = 'UNKNOWN_APPLICATION',
  InvalidScope = 'INVALID_SCOPE',
  RedirectUriInvalid = 'REDIRECT_URI_INVALID',
  RedirectUriMismatch = 'REDIRECT_URI_MISMATCH',
  CodeChallengeInvalid = 'CODE_CHALLENGE_INVALID',
  CodeChallengeMethodUnsupported = 'CODE_CHALLENGE_METHOD_UNSUPPORTED',
  BotScopeRequired = 'BOT_SCOPE_REQUIRED',
  BotFlagsInvalid = 'BOT_FLAGS_INVALID',
  PermissionsInvalid = 'PERMISSIONS_INVALID',
  ApplicationInteractionsEndpointUrlInvalid = 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID',

  // Guilds and webhooks.
  UnknownRole = 'UNKNOWN_ROLE',
  MessageReferenceUnknownMessage = 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE',
  MessageAllowedMentionsParseExclusive = 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
  InvalidWebhookChannel = 'INVALID_WEBHOOK_CHANNEL',
  ComponentsNotAllowed = 'COMPONENTS_NOT_ALLOWED',
  ComponentLayoutWidthExceeded = 'COMPONENT_LAYOUT_WIDTH_EXCEEDED',
  ComponentCustomIdDuplicated = 'COMPONENT_CUSTOM_ID_DUPLICATED',
  ComponentFieldNotAllowed = 'COMPONENT_FIELD_NOT_ALLOWED',

  // Attachments sent through upload URLs (`attachments[].uploaded_filename` of a message).
  AttachmentUploadUnknown = 'ATTACHMENT_UPLOAD_UNKNOWN',
  AttachmentUploadIncomplete = 'ATTACHMENT_UPLOAD_INCOMPLETE',

  // Application commands (Discord's codes).
  ApplicationCommandInvalidName = 'APPLICATION_COMMAND_INVALID_NAME',
  ApplicationCommandInvalidDescription = 'APPLICATION_COMMAND_INVALID_DESCRIPTION',
  ApplicationCommandOptionsRequiredInvalid = 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
  ApplicationCommandOptionsNameAlreadyExists = 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS',
  ApplicationCommandOptionsTypeInvalid = 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
  ApplicationCommandOptionChoicesInvalid = 'APPLICATION_COMMAND_OPTION_CHOICES_INVALID',
  ApplicationCommandsDuplicateName = 'APPLICATION_COMMANDS_DUPLICATE_NAME',

  // Admin: keys, bans, bulk.
  InvalidAcl = 'INVALID_ACL',
  InvalidIp = 'INVALID_IP',
  InvalidPhone = 'INVALID_PHONE',
  BanValueRequired = 'BAN_VALUE_REQUIRED',
  EmailBanned = 'EMAIL_BANNED',
  PhoneBanned = 'PHONE_BANNED',
}

/**
 * Default messages: what `ApiError.field(path, code)` says when the thrower gives none. A thrower
 * that knows more (the limit, the field's name) passes its own; class-validator's messages come
 * from the decorators.
 */
export const FIELD_ERROR_TABLE: Record<FieldErrorCode, { message: string }> = {
  [FieldErrorCode.BaseTypeRequired]: { message: 'This field is required.' },
  [FieldErrorCode.BaseTypeString]: { message: 'Must be a string.' },
  [FieldErrorCode.BaseTypeBoolean]: { message: 'Must be a boolean.' },
  [FieldErrorCode.BaseTypeInteger]: { message: 'Must be an integer.' },
  [FieldErrorCode.BaseTypeNumber]: { message: 'Must be a number.' },
  [FieldErrorCode.BaseTypeArray]: { message: 'Must be an array.' },
  [FieldErrorCode.BaseTypeObject]: { message: 'Must be an object.' },
  [FieldErrorCode.BaseTypeMinLength]: { message: 'Too short.' },
  [FieldErrorCode.BaseTypeMaxLength]: { message: 'Too long.' },
  [FieldErrorCode.BaseTypeChoices]: { message: 'Not one of the allowed values.' },
  [FieldErrorCode.BaseTypeFormat]: { message: 'Not in the expected format.' },
  [FieldErrorCode.BaseTypeSnowflake]: { message: 'Must be a snowflake id.' },
  [FieldErrorCode.BaseTypeInvalid]: { message: 'Invalid value.' },
  [FieldErrorCode.NumberTypeMin]: { message: 'Too small.' },
  [FieldErrorCode.NumberTypeMax]: { message: 'Too large.' },
  [FieldErrorCode.UnknownField]: { message: 'Unknown field.' },
  [FieldErrorCode.InvalidEmail]: { message: 'Not a valid e-mail address.' },
  [FieldErrorCode.InvalidUrl]: { message: 'Not a valid URL.' },
  [FieldErrorCode.UrlTypeInvalidUrl]: { message: 'Not a well formed URL.' },
  [FieldErrorCode.UrlTypeInvalidScheme]: {
    message: 'Scheme must be http or https (or attachment:// for images and icons).',
  },
  [FieldErrorCode.InvalidSnowflake]: { message: 'Must be a snowflake id.' },
  [FieldErrorCode.InvalidIsLength]: { message: 'Length out of range.' },
  [FieldErrorCode.InvalidIsSnowflake]: { message: 'Must be a snowflake id.' },

  [FieldErrorCode.InvalidLogin]: { message: 'Login or password is invalid.' },
  [FieldErrorCode.ConsentRequired]: { message: 'You must agree to the terms of service.' },
  [FieldErrorCode.DateOfBirthInvalid]: { message: 'Not a valid date.' },
  [FieldErrorCode.DateOfBirthUnderage]: { message: 'You are too young to register.' },
  [FieldErrorCode.EmailAlreadyRegistered]: { message: 'Email is already registered.' },
  [FieldErrorCode.EmailRequired]: { message: 'The account has no e-mail address.' },
  [FieldErrorCode.PasswordLength]: { message: 'Password must be 8 to 256 characters.' },
  [FieldErrorCode.PasswordRequired]: { message: 'The current password is required.' },
  [FieldErrorCode.PasswordDoesNotMatch]: { message: 'Password does not match.' },
  [FieldErrorCode.UsernameInvalid]: { message: 'Username must be 2-32 of A-Z a-z 0-9 _.' },
  [FieldErrorCode.NameInvisible]: {
    message:
      'Must contain at least one visible character (not only spaces, bidi or zero-width characters).',
  },
  [FieldErrorCode.UsernameTooManyUsers]: { message: 'Too many users have this username.' },
  [FieldErrorCode.DiscriminatorInvalid]: { message: 'Discriminator must be 4 digits.' },
  [FieldErrorCode.DiscriminatorTaken]: {
    message: 'This username and discriminator are already taken.',
  },

  [FieldErrorCode.ImageInvalid]: { message: 'Not a valid image data URI.' },
  [FieldErrorCode.ImageTooLarge]: { message: 'Image is larger than 8 MiB.' },

  [FieldErrorCode.UnknownApplication]: { message: 'Unknown application.' },
  [FieldErrorCode.InvalidScope]: {
    message:
      'scope must be a space-separated subset of: identify email guilds guilds.join bot openid profile applications.commands.update.',
  },
  [FieldErrorCode.RedirectUriInvalid]: { message: 'Invalid redirect URI.' },
  [FieldErrorCode.RedirectUriMismatch]: {
    message: 'redirect_uri must exactly match one of the application’s redirect URIs.',
  },
  [FieldErrorCode.CodeChallengeInvalid]: { message: 'Invalid code_challenge.' },
  [FieldErrorCode.CodeChallengeMethodUnsupported]: {
    message: 'code_challenge_method must be S256.',
  },
  [FieldErrorCode.BotScopeRequired]: { message: 'guild_id needs the bot scope.' },
  [FieldErrorCode.BotFlagsInvalid]: {
    message: 'Only FRIENDLY_BOT (16) and FRIENDLY_BOT_MANUAL_APPROVAL (32) may be set.',
  },
  [FieldErrorCode.PermissionsInvalid]: { message: 'permissions is out of range.' },
  [FieldErrorCode.ApplicationInteractionsEndpointUrlInvalid]: {
    message: 'The specified interactions endpoint url could not be verified.',
  },

  [FieldErrorCode.UnknownRole]: { message: 'Every role must belong to this guild.' },
  [FieldErrorCode.MessageReferenceUnknownMessage]: {
    message: 'Unknown message: a reply answers an existing message of the same channel.',
  },
  [FieldErrorCode.MessageAllowedMentionsParseExclusive]: {
    message: 'parse: ["users"] and users: [ids] (or roles) are mutually exclusive.',
  },
  [FieldErrorCode.InvalidWebhookChannel]: {
    message: 'The channel must belong to the same guild as the webhook.',
  },
  [FieldErrorCode.ComponentsNotAllowed]: {
    message: 'Cannot send messages with components as a user: only bots and applications can.',
  },
  [FieldErrorCode.ComponentLayoutWidthExceeded]: {
    message: 'The action row holds more than fits: up to 5 buttons, or one select menu alone.',
  },
  [FieldErrorCode.ComponentCustomIdDuplicated]: {
    message: 'custom_id must be unique among the components of a message.',
  },
  [FieldErrorCode.ComponentFieldNotAllowed]: {
    message: 'This component may not have this field.',
  },

  [FieldErrorCode.AttachmentUploadUnknown]: {
    message:
      'No such upload: an upload_filename you were given for this channel, not yet used, cancelled or expired.',
  },
  [FieldErrorCode.AttachmentUploadIncomplete]: {
    message: 'The file has not been uploaded (or not all of it): PUT it to its upload_url first.',
  },

  [FieldErrorCode.ApplicationCommandInvalidName]: { message: 'Command name is invalid.' },
  [FieldErrorCode.ApplicationCommandInvalidDescription]: {
    message:
      'Chat input commands need a description of 1-100 characters; context menu commands none.',
  },
  [FieldErrorCode.ApplicationCommandOptionsRequiredInvalid]: {
    message: 'Required options must be placed before non-required options.',
  },
  [FieldErrorCode.ApplicationCommandOptionsNameAlreadyExists]: {
    message: 'Command option names must be unique.',
  },
  [FieldErrorCode.ApplicationCommandOptionsTypeInvalid]: {
    message: 'This option type is not allowed here.',
  },
  [FieldErrorCode.ApplicationCommandOptionChoicesInvalid]: {
    message: 'Choices are only for string, integer and number options without autocomplete.',
  },
  [FieldErrorCode.ApplicationCommandsDuplicateName]: {
    message: 'Application command names must be unique per type.',
  },

  [FieldErrorCode.InvalidAcl]: { message: 'Unknown ACL.' },
  [FieldErrorCode.InvalidIp]: {
    message: 'Must be an IPv4 or IPv6 address or a CIDR range (e.g. 203.0.113.0/24).',
  },
  [FieldErrorCode.InvalidPhone]: {
    message: 'Must be a phone number in E.164 form (+ and 8 to 15 digits).',
  },
  [FieldErrorCode.BanValueRequired]: { message: 'Give one value or a list of values.' },
  [FieldErrorCode.EmailBanned]: { message: 'This e-mail address cannot be used.' },
  [FieldErrorCode.PhoneBanned]: { message: 'This phone number cannot be used.' },
};
