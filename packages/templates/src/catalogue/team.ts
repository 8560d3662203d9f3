import { detailsTable } from '../blocks/details-table.js';
import type { TemplateDefinition } from '../model.js';
import { defineTemplate } from './define.js';

const teamDetails = (
  name: string,
  heading: string,
  rows: [string, string, ('date-time' | 'email' | 'string')?][],
  required: string[] = [],
) => detailsTable(name, heading, rows, required);

export const teamTemplates: TemplateDefinition[] = [
  defineTemplate('team', 'invitation', 'transactional', 'Sent to invite someone to a team', {
    subject: 'You have been invited to join a team on {{projectName}}',
    preheader: 'Join your teammates on {{projectName}} with one click.',
    heading: 'You are invited',
    intro: 'You have been invited to join a team on {{projectName}}.',
    details: teamDetails('invitationDetails', 'Invitation details', [
      ['teamName', 'Team'],
      ['invitedBy', 'Invited by', 'email'],
      ['role', 'Role'],
      ['expiresAt', 'Expires', 'date-time'],
    ]),
    button: { label: 'Accept invitation', isUrlRequired: true },
    footerNote: 'If you were not expecting this invitation, you can ignore this email.',
  }),
  defineTemplate(
    'team',
    'invitation-accepted',
    'transactional',
    'Sent to the inviter when an invitation is accepted',
    {
      subject: 'Your invitation was accepted',
      preheader: 'A new member joined your team.',
      heading: 'Invitation accepted',
      intro: 'A new member accepted your invitation and joined your team.',
      details: teamDetails(
        'memberDetails',
        'Member details',
        [
          ['memberEmail', 'Member', 'email'],
          ['teamName', 'Team'],
          ['role', 'Role'],
          ['joinedAt', 'Joined', 'date-time'],
        ],
        ['memberEmail'],
      ),
      button: { label: 'View team' },
    },
  ),
  defineTemplate('team', 'member-removed', 'transactional', 'Sent when a member is removed from a team', {
    subject: 'You were removed from a team',
    preheader: 'See which team, and when it happened.',
    heading: 'Removed from team',
    intro: 'You were removed from a team and no longer have access to its content.',
    details: teamDetails(
      'removalDetails',
      'Details',
      [
        ['teamName', 'Team'],
        ['removedAt', 'Removed', 'date-time'],
      ],
      ['teamName'],
    ),
    footerNote: 'If you think this is a mistake, contact the team owner.',
  }),
  defineTemplate('team', 'role-changed', 'transactional', "Sent when a member's role changes", {
    subject: 'Your role was changed',
    preheader: 'See your new role on the team.',
    heading: 'Your role changed',
    intro: 'Your role on a team was changed, and with it what you can do there.',
    details: teamDetails(
      'roleDetails',
      'Role details',
      [
        ['teamName', 'Team'],
        ['previousRole', 'Previous role'],
        ['newRole', 'New role'],
        ['changedBy', 'Changed by', 'email'],
      ],
      ['newRole'],
    ),
    button: { label: 'View team' },
  }),
  defineTemplate(
    'team',
    'ownership-transferred',
    'transactional',
    'Sent when team ownership moves to another member',
    {
      subject: 'Team ownership was transferred',
      preheader: 'Check the details to see who owns the team now.',
      heading: 'Ownership transferred',
      intro: 'Ownership of a team was transferred.',
      details: teamDetails('transferDetails', 'Transfer details', [
        ['teamName', 'Team'],
        ['previousOwner', 'Previous owner', 'email'],
        ['newOwner', 'New owner', 'email'],
        ['transferredAt', 'Transferred', 'date-time'],
      ]),
      button: { label: 'View team' },
      footerNote: 'If you did not expect this change, contact {{supportEmail}}.',
    },
  ),
  defineTemplate(
    'team',
    'access-requested',
    'transactional',
    'Sent to team admins when someone asks to join',
    {
      subject: 'Someone asked to join your team',
      preheader: 'Review the request to approve or decline it.',
      heading: 'Access requested',
      intro: 'Someone asked for access to your team.',
      details: teamDetails(
        'requestDetails',
        'Request details',
        [
          ['requesterEmail', 'Requested by', 'email'],
          ['teamName', 'Team'],
          ['requestedAt', 'Requested', 'date-time'],
          ['message', 'Message'],
        ],
        ['requesterEmail'],
      ),
      button: { label: 'Review request', isUrlRequired: true },
    },
  ),
];
