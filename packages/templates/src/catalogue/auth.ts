import { detailsTable } from '../blocks/details-table.js';
import type { TemplateDefinition } from '../model.js';
import { defineTemplate } from './define.js';
import { NOT_YOU } from './wording.js';

const IGNORE_REQUEST = 'If you did not request this email, you can safely ignore it.';
// Seed wording (email-changed, mfa-disabled), fixed by the seed. SpamAssassin's TVD_PH_SEC reads
// "your … account … security" as phishing: no other template uses it.
const SEED_REVIEW_SECURITY = 'If you did not make this change, review your account security.';
const signInDetails = (name: string, heading: string, timeKey: string, timeLabel: string) =>
  detailsTable(name, heading, [
    [timeKey, timeLabel, 'date-time'],
    ['device', 'Device'],
    ['country', 'Location'],
    ['ip', 'IP address'],
  ]);

export const authTemplates: TemplateDefinition[] = [
  // Seed template: fields, maxima and defaults as in template-route-wrapper.md §2.
  defineTemplate('auth', 'account-locked', 'security', 'Sent when an account is locked', {
    subject: 'Account locked',
    preheader: 'Your account has been locked for security.',
    heading: 'Account locked',
    intro: 'Your account has been locked for security.',
    details: detailsTable('lockDetails', 'Lock details', [
      ['lockedAt', 'Locked', 'date-time'],
      ['reason', 'Reason'],
    ]),
    notice: 'You may need to verify your identity before access is restored.',
    button: { label: 'Unlock account' },
  }),
  defineTemplate('auth', 'account-unlocked', 'security', 'Sent when a locked account is unlocked', {
    subject: 'Your account is unlocked',
    preheader: 'You can sign in to your account again.',
    heading: 'Account unlocked',
    intro: 'Your account has been unlocked. You can sign in again.',
    button: { label: 'Sign in' },
    footerNote: 'If you did not expect this, contact {{supportEmail}}.',
  }),
  // Seed template.
  defineTemplate('auth', 'email-changed', 'security', 'Sent when an account email address is changed', {
    subject: 'Email address changed',
    preheader: 'The email address on your account was changed.',
    heading: 'Email address changed',
    intro: 'The email address on your account was changed.',
    details: detailsTable('changeDetails', 'Change details', [
      ['changedAt', 'Changed', 'date-time'],
      ['oldEmail', 'Previous email', 'email'],
      ['newEmail', 'New email', 'email'],
    ]),
    button: { label: 'Review account' },
    footerNote: SEED_REVIEW_SECURITY,
  }),
  defineTemplate('auth', 'email-change-requested', 'security', 'Sent to confirm a new email address', {
    subject: 'Confirm your new email address',
    preheader: 'One click moves your {{projectName}} sign-in email to this address.',
    heading: 'Confirm your new email address',
    intro:
      'Someone asked to use this address for an account on {{projectName}}. Confirm it to finish the change.',
    button: { label: 'Confirm email address', isUrlRequired: true },
    footerNote: IGNORE_REQUEST,
  }),
  // Seed template.
  defineTemplate('auth', 'login-code', 'security', 'Sent when a user requests a one-time login code', {
    subject: 'Your login code',
    preheader: 'Use this code to continue signing in.',
    heading: 'Your login code',
    intro: 'Use this code to continue signing in.',
    code: true,
    securityNote: 'For security, this code will expire soon.',
    footerNote: 'If you did not request this code, you can safely ignore this email.',
  }),
  // Seed template: actionButton (with url) is required.
  defineTemplate('auth', 'magic-link', 'security', 'Sent when a user requests a sign-in link', {
    subject: 'Your sign-in link for {{projectName}}',
    preheader: 'Use this secure link to sign in.',
    heading: 'Sign in to your account',
    intro: 'Use this secure link to sign in. This link is private and will expire soon.',
    button: { label: 'Sign in', isUrlRequired: true },
    footerNote: IGNORE_REQUEST,
  }),
  // Seed template.
  defineTemplate('auth', 'mfa-disabled', 'security', 'Sent when multi-factor authentication is disabled', {
    subject: 'Multi-factor authentication disabled',
    preheader: 'Multi-factor authentication has been removed from your account.',
    heading: 'Multi-factor authentication disabled',
    intro: 'Multi-factor authentication has been disabled for your account.',
    details: signInDetails('securityDetails', 'Security details', 'disabledAt', 'Disabled'),
    notice: 'Your account may be less protected without multi-factor authentication.',
    button: { label: 'Review account' },
    footerNote: SEED_REVIEW_SECURITY,
  }),
  defineTemplate('auth', 'mfa-enabled', 'security', 'Sent when multi-factor authentication is turned on', {
    subject: 'Multi-factor authentication enabled',
    preheader: 'Your account now asks for a second step when you sign in.',
    heading: 'Multi-factor authentication enabled',
    intro:
      'Multi-factor authentication is now on for your account. You will be asked for a second step when you sign in.',
    details: signInDetails('securityDetails', 'Security details', 'enabledAt', 'Enabled'),
    button: { label: 'Review account' },
    footerNote:
      'If you did not turn this on, someone else may know your password: set a new one and contact {{projectName}} support.',
  }),
  defineTemplate(
    'auth',
    'new-sign-in',
    'security',
    'Sent when an account is signed in from a new device or place',
    {
      subject: 'New sign-in to your account',
      preheader: 'We noticed a sign-in from a new device or location.',
      heading: 'New sign-in to your account',
      intro: 'Your account was just signed in to from a device or location we have not seen before.',
      details: signInDetails('signInDetails', 'Sign-in details', 'signedInAt', 'Time'),
      notice: 'If this was you, there is nothing to do.',
      button: { label: 'Review activity' },
      footerNote: 'If this was not you, set a new password now and sign out of your other sessions.',
    },
  ),
  defineTemplate('auth', 'passkey-added', 'security', 'Sent when a passkey is added to an account', {
    subject: 'A passkey was added to your account',
    preheader: 'You can now sign in with this passkey.',
    heading: 'Passkey added',
    intro: 'A new passkey was added to your account. You can use it to sign in.',
    details: detailsTable('passkeyDetails', 'Passkey details', [
      ['addedAt', 'Added', 'date-time'],
      ['passkeyName', 'Name'],
      ['device', 'Device'],
    ]),
    button: { label: 'Manage passkeys' },
    footerNote:
      'If you did not add this passkey, remove it, set a new password and contact {{projectName}} support.',
  }),
  defineTemplate('auth', 'passkey-removed', 'security', 'Sent when a passkey is removed from an account', {
    subject: 'A passkey was removed from your account',
    preheader: 'This passkey can no longer be used to sign in.',
    heading: 'Passkey removed',
    intro: 'A passkey was removed from your account and can no longer be used to sign in.',
    details: detailsTable('passkeyDetails', 'Passkey details', [
      ['removedAt', 'Removed', 'date-time'],
      ['passkeyName', 'Name'],
    ]),
    button: { label: 'Manage passkeys' },
    footerNote: NOT_YOU,
  }),
  defineTemplate('auth', 'password-changed', 'security', 'Sent when an account password is changed', {
    subject: 'Your password was changed',
    preheader: 'If you made this change, there is nothing else to do.',
    heading: 'Password changed',
    intro: 'The password for your account was changed.',
    details: signInDetails('changeDetails', 'Change details', 'changedAt', 'Changed'),
    button: { label: 'Review account' },
    footerNote: 'If you did not make this change, reset your password now and contact {{supportEmail}}.',
  }),
  defineTemplate('auth', 'password-reset', 'security', 'Sent when a user asks to reset their password', {
    subject: 'Reset your password',
    preheader: 'The link inside works once and expires soon.',
    heading: 'Choose a new password',
    intro:
      'We received a request to reset the password for your account. Use the button below to choose a new one.',
    securityNote: 'For security, this link will expire soon and can be used once.',
    button: { label: 'Reset password', isUrlRequired: true },
    footerNote:
      'If you did not ask to reset your password, you can safely ignore this email. Your password will not change.',
  }),
  defineTemplate(
    'auth',
    'recovery-codes-generated',
    'security',
    'Sent when new recovery codes are generated',
    {
      subject: 'New recovery codes generated',
      preheader: 'Your previous recovery codes no longer work.',
      heading: 'New recovery codes generated',
      intro: 'New recovery codes were generated for your account. Your previous codes no longer work.',
      notice: 'Store your new codes somewhere safe. Each code can be used once.',
      button: { label: 'Review account' },
      footerNote:
        'If you did not generate these codes, set a new password now and contact {{projectName}} support.',
    },
  ),
  defineTemplate(
    'auth',
    'suspicious-activity',
    'security',
    'Sent when unusual account activity is detected',
    {
      subject: 'Please check recent activity on your {{projectName}} account',
      preheader: 'Take a moment to check it, and act if it was not you.',
      heading: 'Was this you?',
      intro: 'We noticed activity on your account that does not match your usual pattern.',
      details: detailsTable('activityDetails', 'Activity details', [
        ['detectedAt', 'Detected', 'date-time'],
        ['activity', 'Activity'],
        ['country', 'Location'],
        ['ip', 'IP address'],
      ]),
      notice:
        'If this was you, there is nothing to do. If not, change your password and sign out of other sessions.',
      button: { label: 'Secure account' },
      footerNote: 'Questions? Contact {{supportEmail}}.',
    },
  ),
  defineTemplate('auth', 'verification-code', 'security', 'Sent to confirm a sensitive action with a code', {
    subject: 'Your verification code',
    preheader: 'Use this code to confirm it is you.',
    heading: 'Confirm it is you',
    intro: 'Enter this code to confirm the action you started.',
    code: true,
    securityNote: 'For security, this code will expire soon. Never share it with anyone.',
    footerNote:
      'If you did not start this action, do not share the code: someone may know your password, so set a new one.',
  }),
  defineTemplate('auth', 'verify-email', 'security', 'Sent to verify an email address', {
    subject: 'Verify your email address',
    preheader: 'One click and your {{projectName}} sign-up is complete.',
    heading: 'Verify your email address',
    intro: 'Confirm that this is your email address to finish signing up for {{projectName}}.',
    button: { label: 'Verify email address', isUrlRequired: true },
    footerNote: 'If you did not create an account, you can safely ignore this email.',
  }),
];
