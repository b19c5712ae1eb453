// Request-body examples of the webhook routes (Swagger UI pre-fills the first). The execute
// examples are deliveries the transformers render: each posts a message.
import { EXAMPLE, type BodyExamples } from '../../common/openapi/examples';

export const CREATE_WEBHOOK_EXAMPLES: BodyExamples = {
  name: { summary: 'A webhook with the default avatar', value: { name: 'Build bot' } },
  avatar: {
    summary: 'With an avatar (a PNG data URI)',
    value: { name: 'Build bot', avatar: EXAMPLE.pngDataUri },
  },
};

export const UPDATE_WEBHOOK_TOKEN_EXAMPLES: BodyExamples = {
  rename: { summary: 'Rename the webhook', value: { name: 'Release bot' } },
  avatar: { summary: 'Set the avatar', value: { avatar: EXAMPLE.pngDataUri } },
  remove_avatar: { summary: 'Remove the avatar', value: { avatar: null } },
};

export const UPDATE_WEBHOOK_EXAMPLES: BodyExamples = {
  ...UPDATE_WEBHOOK_TOKEN_EXAMPLES,
  move: {
    summary: 'Move it to another channel of the guild',
    value: { channel_id: EXAMPLE.channelId },
  },
  signing_secret: {
    summary: 'Require signed /repohost and /errortracker deliveries',
    value: { signing_secret: 'whsec-3f9a1c7e5b2d8f4a6c0e' },
  },
  remove_signing_secret: { summary: 'Stop requiring signatures', value: { signing_secret: null } },
};

export const EXECUTE_WEBHOOK_EXAMPLES: BodyExamples = {
  content: {
    summary: 'A text message',
    value: { content: 'Deployment finished: v1.4.0 is live.' },
  },
  embed: {
    summary: 'An embed, under another name',
    value: {
      username: 'Deploy bot',
      avatar_url: 'https://app.example.com/static/deploy-bot.png',
      embeds: [
        {
          title: 'Deployed v1.4.0 to production',
          url: 'https://app.example.com/deployments/842',
          description: '3 services updated in 4 min 12 s.',
          color: 0x2ea043,
          fields: [{ name: 'Environment', value: 'production', inline: true }],
        },
      ],
    },
  },
};

export const EDIT_WEBHOOK_MESSAGE_EXAMPLES: BodyExamples = {
  content: {
    summary: 'Change the text',
    value: { content: 'Deployment finished: v1.4.1 is live.' },
  },
  keep_and_add: {
    summary: 'Keep one attachment, add this request’s files[0] (multipart payload_json)',
    value: {
      content: 'Logs attached.',
      attachments: [{ id: '1302159001102540803' }, { id: 0, description: 'build log' }],
    },
  },
  suppress_embeds: { summary: 'Hide the embeds', value: { flags: 4 } },
};

export const CHATCOMPAT_EXAMPLES: BodyExamples = {
  text: { summary: 'A text message', value: { text: 'Build *#842* passed :white_check_mark:' } },
  attachment: {
    summary: 'With an attachment',
    value: {
      text: 'Nightly backup report',
      attachments: [
        {
          color: 'good',
          title: 'Backup completed',
          title_link: 'https://app.example.com/backups/2024-11-05',
          text: '42 GiB in 18 minutes',
          fields: [{ title: 'Host', value: 'db-1', short: true }],
          ts: 1730817000,
        },
      ],
    },
  },
};

/** A `push` delivery (send it with `X-GitHub-Event: push`). */
export const REPOHOST_EXAMPLES: BodyExamples = {
  push: {
    summary: 'A push of one commit (X-GitHub-Event: push)',
    value: {
      ref: 'refs/heads/main',
      before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
      after: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
      created: false,
      deleted: false,
      forced: false,
      compare: 'https://github.com/ada/engine/compare/6113728f27ae...0d1a26e67d8f',
      commits: [
        {
          id: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
          message: 'Fix the carry in the mill',
          url: 'https://github.com/ada/engine/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
          author: { name: 'Ada Lovelace', email: EXAMPLE.email, username: 'ada' },
        },
      ],
      repository: {
        id: 1296269,
        name: 'engine',
        full_name: 'ada/engine',
        html_url: 'https://github.com/ada/engine',
      },
      sender: {
        id: 583231,
        login: 'ada',
        avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4',
        html_url: 'https://github.com/ada',
      },
    },
  },
};

/** An issue alert in the integration-platform format (`Sentry-Hook-Resource: issue`). */
export const ERRORTRACKER_EXAMPLES: BodyExamples = {
  issue: {
    summary: 'A new issue',
    value: {
      action: 'created',
      installation: { uuid: '7a485448-a9e2-4c85-8a3c-4f44175783c9' },
      actor: { id: 'sentry', name: 'Sentry', type: 'application' },
      data: {
        issue: {
          id: '1170820242',
          shortId: 'ENGINE-3',
          title: "TypeError: Cannot read properties of undefined (reading 'carry')",
          culprit: 'mill.add(src/mill.ts)',
          level: 'error',
          status: 'unresolved',
          count: '1',
          userCount: 1,
          firstSeen: '2024-11-05T14:30:00.000Z',
          lastSeen: '2024-11-05T14:30:00.000Z',
          project: { id: '1', name: 'engine', slug: 'engine' },
          web_url: 'https://sentry.example.com/organizations/ada/issues/1170820242/',
        },
      },
    },
  },
};
