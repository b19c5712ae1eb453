/** Where a code was sent. */
export class SmsSentResponse {
  /** The phone number, masked but the last two digits, e.g. `+*********67`. */
  phone: string;
}
