import { detailsTable } from '../blocks/details-table.js';
import type { TemplateDefinition } from '../model.js';
import { defineTemplate } from './define.js';

const QUESTIONS = 'Questions? Contact {{supportEmail}}.';

export const accountTemplates: TemplateDefinition[] = [
  defineTemplate(
    'account',
    'welcome',
    'transactional',
    'Sent when an account is created',
    {
      subject: 'Welcome to {{projectName}}',
      preheader: 'Your account is ready.',
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
          preheader: 'Three things to do first.',
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
      details: detailsTable('deletionDetails', 'Deletion details', [
        ['requestedAt', 'Requested', 'date-time'],
        ['deleteAt', 'Deletion date', 'date-time'],
      ]),
      button: { label: 'Cancel deletion' },
      footerNote: 'If you did not ask for this, cancel the deletion and review your account security.',
    },
  ),
  defineTemplate('account', 'deleted', 'transactional', 'Sent when an account has been deleted', {
    subject: 'Your account has been deleted',
    preheader: 'Your account and its data have been deleted.',
    heading: 'Account deleted',
    intro: 'Your {{projectName}} account and its data have been deleted. Thank you for having been with us.',
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
      footerNote: 'If you did not ask for an export, review your account security.',
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
      footerNote: 'If you did not create this key, revoke it now and review your account security.',
    },
  ),
  defineTemplate(
    'account',
    'phone-number-changed',
    'transactional',
    'Sent when the phone number on an account changes',
    {
      subject: 'Your phone number was changed',
      preheader: 'The phone number on your account was updated.',
      heading: 'Phone number changed',
      intro: 'The phone number on your account was changed.',
      details: detailsTable('changeDetails', 'Change details', [
        ['changedAt', 'Changed', 'date-time'],
        ['phoneNumber', 'New number'],
      ]),
      button: { label: 'Review account' },
      footerNote: 'If you did not make this change, review your account security.',
    },
  ),
  defineTemplate(
    'account',
    'reactivated',
    'transactional',
    'Sent when a deactivated account is reactivated',
    {
      subject: 'Your account is active again',
      preheader: 'Welcome back.',
      heading: 'Welcome back',
      intro:
        'Your {{projectName}} account has been reactivated. Your data and settings are as you left them.',
      button: { label: 'Sign in' },
      footerNote: QUESTIONS,
    },
  ),
  defineTemplate('account', 'profile-updated', 'transactional', 'Sent when profile details change', {
    subject: 'Your profile was updated',
    preheader: 'Changes were saved to your profile.',
    heading: 'Profile updated',
    intro: 'Changes were saved to your profile.',
    details: detailsTable('changeDetails', 'Change details', [
      ['changedAt', 'Changed', 'date-time'],
      ['fields', 'What changed'],
    ]),
    button: { label: 'View profile' },
    footerNote: 'If you did not make this change, review your account security.',
  }),
];
