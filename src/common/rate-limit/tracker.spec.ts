import type { ParleyRequest } from '../auth/caller';
import { trackerFor } from './parley-throttler.guard';

const request = (value: unknown): ParleyRequest =>
  ({ ip: '203.0.113.7', routeCredential: { name: 'webhook', value } }) as unknown as ParleyRequest;

describe('the webhook bucket’s tracker', () => {
  it('counts a matched webhook against the webhook', () => {
    expect(trackerFor('webhook', request({ webhookId: '42' }))).toBe('webhook:42');
  });

  it('counts an interaction’s follow-ups against that interaction, not the bot’s address', () => {
    expect(trackerFor('webhook', request({ id: '7', applicationId: '9' }))).toBe('interaction:7');
  });

  it('counts a wrong token against the address that sent it', () => {
    expect(trackerFor('webhook', request(null))).toBe('ip:203.0.113.7');
  });
});
