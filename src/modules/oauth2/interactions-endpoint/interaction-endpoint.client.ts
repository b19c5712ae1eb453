import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { randomToken } from '../../../common/crypto/tokens';
import { SnowflakeService } from '../../../common/snowflake/snowflake.service';
import { AppConfig } from '../../../config/app.config';
import {
  OUTBOUND_MAX_RESPONSE_BYTES,
  OutboundError,
  OutboundHttp,
  type OutboundResponse,
} from '../../../infra/outbound/outbound-http';
import { ApplicationKeys } from '../application-keys';
import { signInteraction } from './interaction-signer';

/** The parts of an application delivery needs (an ApplicationEntity fits). */
export interface InteractionTarget {
  id: string;
  verifyKey: string | null;
  interactionsEndpointUrl: string | null;
}

/**
 * What the application's endpoint did with an interaction: answered it inline (200, the body is
 * the interaction callback), will answer through the callback route (202), or failed (anything
 * else, a timeout, a refused address, an answer too large or not JSON).
 */
export type DeliveryResult =
  | { kind: 'answered'; body: Record<string, unknown> }
  | { kind: 'deferred' }
  | { kind: 'failed'; reason: string };

/** Why an endpoint URL was not accepted, for the person setting it; null when it was. */
export type EndpointVerification = { ok: true } | { ok: false; reason: string };

const INTERACTION_TYPE_PING = 1;

/**
 * POSTs interactions to an application's `interactions_endpoint_url`, signed as Discord signs
 * them (`X-Signature-Ed25519` over `X-Signature-Timestamp` + body), through OutboundHttp (3-s
 * timeout, bounded answer, no redirects, public addresses only unless OUTBOUND_ALLOW_PRIVATE).
 * The private key stays a KeyObject in ApplicationKeys: it is never returned or logged.
 */
@Injectable()
export class InteractionEndpointClient {
  private readonly userAgent: string;

  constructor(
    private readonly outbound: OutboundHttp,
    private readonly keys: ApplicationKeys,
    private readonly snowflakes: SnowflakeService,
    config: AppConfig,
  ) {
    this.userAgent = `Parley-Interactions/1.0 (+${config.publicUrl})`;
  }

  /** Delivers one interaction to the application's endpoint (one signature, one request). */
  async deliver(app: InteractionTarget, interaction: object): Promise<DeliveryResult> {
    if (!app.interactionsEndpointUrl) return { kind: 'failed', reason: 'no interactions endpoint' };
    const res = await this.post(app, app.interactionsEndpointUrl, JSON.stringify(interaction));
    if ('failure' in res) return { kind: 'failed', reason: res.failure };
    if (res.status === 202) return { kind: 'deferred' };
    if (res.status !== 200)
      return { kind: 'failed', reason: `the endpoint answered ${res.status}` };
    const body = parseObject(res.body);
    if (!body) return { kind: 'failed', reason: 'the endpoint’s answer is not a JSON object' };
    return { kind: 'answered', body };
  }

  /**
   * Discord's check of a new endpoint URL: a signed PING must be answered 200 `{"type": 1}`, and
   * the same PING with a wrong signature refused with 401 (an endpoint that does not check
   * signatures would accept interactions from anyone).
   */
  async verify(app: InteractionTarget, url: string): Promise<EndpointVerification> {
    const ping = JSON.stringify({
      id: this.snowflakes.next(),
      application_id: app.id,
      type: INTERACTION_TYPE_PING,
      token: randomToken(32),
      version: 1,
    });
    const signed = await this.post(app, url, ping);
    if ('failure' in signed) return { ok: false, reason: signed.failure };
    if (signed.status !== 200) {
      return { ok: false, reason: `a signed PING was answered ${signed.status}, not 200` };
    }
    if (parseObject(signed.body)?.type !== INTERACTION_TYPE_PING) {
      return { ok: false, reason: 'a signed PING was not answered {"type": 1}' };
    }
    const forged = await this.post(app, url, ping, { forge: true });
    if ('failure' in forged) return { ok: false, reason: forged.failure };
    if (forged.status !== 401) {
      return {
        ok: false,
        reason: `a PING with an invalid signature was answered ${forged.status}, not 401`,
      };
    }
    return { ok: true };
  }

  private async post(
    app: InteractionTarget,
    url: string,
    body: string,
    options: { forge?: boolean } = {},
  ): Promise<OutboundResponse | { failure: string }> {
    const signature = signInteraction(await this.keys.signingKeyOf(app), body);
    if (options.forge) signature['X-Signature-Ed25519'] = randomBytes(64).toString('hex');
    try {
      return await this.outbound.post({
        url,
        body,
        maxResponseBytes: OUTBOUND_MAX_RESPONSE_BYTES,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': this.userAgent,
          ...signature,
        },
      });
    } catch (e) {
      if (e instanceof OutboundError) return { failure: e.detail };
      throw e;
    }
  }
}

function parseObject(body: Buffer): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
