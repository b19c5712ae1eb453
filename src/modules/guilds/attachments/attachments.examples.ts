import { EXAMPLE, type BodyExamples } from '../../../common/openapi/examples';

/** An attachment link as messages show it (its signature is made up). */
const LINK =
  `https://parley.example.com/v1/attachments/${EXAMPLE.channelId}/1302158590227496961/` +
  `report.pdf?ex=6760f1a0&is=675fa020&hm=${'0'.repeat(64)}`;

export const REFRESH_URLS_EXAMPLES: BodyExamples = {
  refresh: { summary: 'Refresh an expired link', value: { attachment_urls: [LINK] } },
};

export const ATTACHMENT_LINK_EXAMPLE = LINK;
