/** One text message. */
export interface SmsMessage {
  /** E.164 phone number. */
  to: string;
  body: string;
  /** What the message is for (e.g. `login`, `phone_verify`), for logs and tests. */
  purpose: string;
}

/** Injection token of the outgoing SMS adapter (log or Twilio-compatible). */
export const SMS_PORT = Symbol('SMS_PORT');

export interface SmsPort {
  /** Sends the message; throws ApiError 503 `SMS_DELIVERY_FAILED` when the provider refuses it. */
  send(message: SmsMessage): Promise<void>;
}
