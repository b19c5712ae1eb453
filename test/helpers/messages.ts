import definitions from '@octokit/webhooks-examples';

/** A real GitHub `push` delivery with commits, from @octokit/webhooks-examples. */
export function pushExample(): Record<string, any> {
  const push = definitions.find((d) => d.name === 'push');
  const example = push?.examples.find(
    (e: Record<string, any>) => Array.isArray(e.commits) && e.commits.length > 0,
  );
  if (!example) throw new Error('no push example with commits');
  return example;
}

/**
 * The fields of Discord's message object that Parley always answers the same way for a message
 * that is not edited and mentions nobody (`timestamp` is the creation time).
 */
export const PLAIN_MESSAGE_FIELDS = {
  type: 0,
  timestamp: expect.any(String),
  edited_timestamp: null,
  tts: false,
  mention_everyone: false,
  mentions: [],
  mention_roles: [],
  attachments: [],
  components: [],
  pinned: false,
  flags: 0,
};
