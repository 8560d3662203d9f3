import { detailsTable } from '../blocks/details-table.js';
import type { TemplateDefinition } from '../model.js';
import { defineTemplate } from './define.js';

export const notificationTemplates: TemplateDefinition[] = [
  defineTemplate('notifications', 'mention', 'notification', 'Sent when someone mentions the recipient', {
    subject: 'You were mentioned',
    preheader: 'Open the conversation to read it and reply.',
    heading: 'You were mentioned',
    intro: 'Someone mentioned you in a conversation.',
    notice: '',
    button: { label: 'View conversation' },
  }),
  defineTemplate('notifications', 'comment-reply', 'notification', 'Sent when someone replies to a comment', {
    subject: 'New reply to your comment',
    preheader: 'Open the thread to read the reply and answer it.',
    heading: 'New reply',
    intro: 'Someone replied to your comment.',
    notice: '',
    button: { label: 'View reply' },
  }),
  defineTemplate(
    'notifications',
    'task-assigned',
    'notification',
    'Sent when a task is assigned to the recipient',
    {
      subject: 'A task was assigned to you',
      preheader: 'Open it to see the details and get started.',
      heading: 'New task assigned',
      intro: 'A task was assigned to you.',
      details: detailsTable(
        'taskDetails',
        'Task details',
        [
          ['title', 'Task'],
          ['assignedBy', 'Assigned by'],
          ['dueAt', 'Due', 'date-time'],
        ],
        ['title'],
      ),
      button: { label: 'View task' },
    },
  ),
  defineTemplate('notifications', 'reminder', 'notification', 'A reminder the recipient asked for', {
    subject: 'Reminder',
    preheader: 'A nudge you set up for yourself.',
    heading: 'Reminder',
    intro: 'Here is the reminder you asked for.',
    details: detailsTable('reminderDetails', 'Reminder details', [
      ['title', 'About'],
      ['dueAt', 'When', 'date-time'],
    ]),
    button: { label: 'Open' },
  }),
  defineTemplate(
    'notifications',
    'item-shared',
    'notification',
    'Sent when an item is shared with the recipient',
    {
      subject: 'Something was shared with you',
      preheader: 'Open it to see what was shared.',
      heading: 'Shared with you',
      intro: 'Something was shared with you.',
      details: detailsTable('shareDetails', 'Share details', [
        ['itemName', 'Item'],
        ['sharedBy', 'Shared by'],
        ['permission', 'Access'],
      ]),
      button: { label: 'Open item', isUrlRequired: true },
    },
  ),
  defineTemplate(
    'notifications',
    'approval-requested',
    'notification',
    'Sent when the recipient is asked to approve something',
    {
      subject: 'Your approval is requested',
      preheader: 'Open the request to approve or decline it.',
      heading: 'Approval requested',
      intro: 'Someone asked for your approval.',
      details: detailsTable('requestDetails', 'Request details', [
        ['title', 'Request'],
        ['requestedBy', 'Requested by'],
        ['dueAt', 'Respond by', 'date-time'],
      ]),
      button: { label: 'Review request', isUrlRequired: true },
    },
  ),
  defineTemplate('notifications', 'report-ready', 'notification', 'Sent when a scheduled report is ready', {
    subject: 'Your report is ready',
    preheader: 'Open it to see the figures for the period.',
    heading: 'Your report is ready',
    intro: 'A report you scheduled is ready to view.',
    details: detailsTable('reportDetails', 'Report details', [
      ['reportName', 'Report'],
      ['period', 'Period'],
      ['generatedAt', 'Generated', 'date-time'],
    ]),
    button: { label: 'View report', isUrlRequired: true },
  }),
  defineTemplate(
    'notifications',
    'activity-digest',
    'notification',
    'A summary of recent activity',
    {
      subject: 'Your activity summary',
      preheader: 'A quick look at what you may have missed.',
      heading: 'Your activity summary',
      intro: 'Here is what happened while you were away.',
      details: detailsTable('digestDetails', 'Summary', [
        ['period', 'Period'],
        ['mentions', 'Mentions'],
        ['comments', 'Comments'],
        ['tasks', 'Tasks'],
      ]),
      button: { label: 'See all activity' },
    },
    [
      {
        version: 'v2',
        status: 'draft',
        copy: {
          subject: 'What you missed on {{projectName}}',
          preheader: 'The highlights since you last checked in.',
          heading: 'What you missed',
          intro: 'A short summary of what happened on {{projectName}}.',
          button: { label: 'Catch up' },
        },
      },
    ],
  ),
];
