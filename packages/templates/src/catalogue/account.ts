import { detailsTable } from '../blocks/details-table.js';
import type { TemplateDefinition } from '../model.js';
import { defineTemplate } from './define.js';
import { NOT_YOU } from './wording.js';

const QUESTIONS = 'Questions? Contact {{supportEmail}}.';

export const accountTemplates: TemplateDefinition[] = [
  defineTemplate(
    'account',
    'welcome',
    'transactional',
    'Sent when an account is created',
    {
      subject: 'Welcome to {{projectName}}',
      preheader: 'Everything is set up and waiting for you.',
      heading: 'Welcome to {{projectName}}',
      intro: 'Your account is ready. We are glad you are here.',
      button: { label: 'Get started' },
      footerNote: QUESTIONS,
    },
    [
      {
        version: 'v2',
        status: 'published',
        layout: 'compact',
        copy: {
          subject: 'Your {{projectName}} account is ready',
          preheader: 'Two quick steps to get the most out of it.',
          heading: 'You are all set',
          intro:
            'Your {{projectName}} account is ready. Start by completing your profile, then invite your team.',
          notice: 'You can change your email preferences at any time in your account settings.',
          button: { label: 'Open {{projectName}}' },
          footerNote: QUESTIONS,
        },
      },
    ],
  ),
  defineTemplate(
    'account',
    'deletion-scheduled',
    'transactional',
    'Sent when an account is scheduled for deletion',
    {
      subject: 'Your account is scheduled for deletion',
      preheader: 'You can cancel the deletion until the date below.',
      heading: 'Account deletion scheduled',
      intro:
        'Your account is scheduled to be deleted. Until then, you can cancel the deletion and keep your account.',
      details: detailsTable(
        'deletionDetails',
        'Deletion details',
        [
          ['requestedAt', 'Requested', 'date-time'],
          ['deleteAt', 'Deletion date', 'date-time'],
        ],
        ['deleteAt'],
      ),
      button: { label: 'Cancel deletion' },
      footerNote:
        'If you did not ask for this, cancel the deletion, set a new password and contact {{projectName}} support.',
    },
  ),
  defineTemplate('account', 'deleted', 'transactional', 'Sent when an account has been deleted', {
    subject: 'Your account has been deleted',
    preheader: 'Thank you for having been with us.',
    heading: 'Account deleted',
    intro: 'Your {{projectName}} account and the data in it have been deleted.',
    footerNote: QUESTIONS,
  }),
  defineTemplate(
    'account',
    'data-export-ready',
    'transactional',
    'Sent when a requested data export can be downloaded',
    {
      subject: 'Your data export is ready',
      preheader: 'Download your data before the link expires.',
      heading: 'Your data export is ready',
      intro: 'The export of your account data you asked for is ready to download.',
      securityNote: 'For security, the download link expires soon and only works for your account.',
      button: { label: 'Download export', isUrlRequired: true },
      footerNote:
        'If you did not ask for an export, set a new password now and contact {{projectName}} support.',
    },
  ),
  defineTemplate(
    'account',
    'api-key-created',
    'transactional',
    'Sent when an API key is created on an account',
    {
      subject: 'A new API key was created',
      preheader: 'A new API key can now access your account.',
      heading: 'New API key created',
      intro: 'A new API key was created for your account.',
      details: detailsTable('keyDetails', 'Key details', [
        ['createdAt', 'Created', 'date-time'],
        ['keyName', 'Name'],
        ['createdBy', 'Created by', 'email'],
      ]),
      button: { label: 'Manage API keys' },
      footerNote: 'If you did not create this key, revoke it and set a new password right away.',
    },
  ),
  defineTemplate(
    'account',
    'action-required',
    'transactional',
    'Sent when something on an account needs its owner’s attention (an integration failing, a setting to fix)',
    {
      subject: 'Action required on your {{projectName}} account',
      preheader: 'Something on your account needs your attention.',
      heading: 'Action required',
      intro: 'Something on your {{projectName}} account needs your attention.',
      details: detailsTable(
        'issueDetails',
        'What needs attention',
        [
          ['item', 'Item'],
          ['problem', 'Problem'],
          ['since', 'Since', 'date-time'],
        ],
        ['item', 'problem'],
      ),
      button: { label: 'Review it', isUrlRequired: true },
      footerNote: QUESTIONS,
    },
  ),
  defineTemplate(
    'account',
    'phone-number-changed',
    'transactional',
    'Sent when the phone number on an account changes',
    {
      subject: 'Your phone number was changed',
      preheader: 'We will use the new number from now on.',
      heading: 'Phone number changed',
      intro: 'The phone number on your account was changed.',
      details: detailsTable('changeDetails', 'Change details', [
        ['changedAt', 'Changed', 'date-time'],
        ['phoneNumber', 'New number'],
      ]),
      button: { label: 'Review account' },
      footerNote: NOT_YOU,
    },
  ),
  defineTemplate(
    'account',
    'reactivated',
    'transactional',
    'Sent when a deactivated account is reactivated',
    {
      subject: 'Your account is active again',
      preheader: 'Your data and settings are just as you left them.',
      heading: 'Welcome back',
      intro: 'Your {{projectName}} account is active again, and you can sign in as before.',
      button: { label: 'Sign in' },
      footerNote: QUESTIONS,
    },
  ),
  defineTemplate('account', 'profile-updated', 'transactional', 'Sent when profile details change', {
    subject: 'Your profile was updated',
    preheader: 'If you made these changes, there is nothing to do.',
    heading: 'Profile updated',
    intro: 'Changes were saved to your profile.',
    details: detailsTable('changeDetails', 'Change details', [
      ['changedAt', 'Changed', 'date-time'],
      ['fields', 'What changed'],
    ]),
    button: { label: 'View profile' },
    footerNote: NOT_YOU,
  }),
];
