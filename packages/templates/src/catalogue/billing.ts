import { detailsTable } from '../blocks/details-table.js';
import type { TemplateDefinition } from '../model.js';
import { defineTemplate } from './define.js';

const BILLING_QUESTIONS = 'Questions about billing? Contact {{supportEmail}}.';

const invoiceDetails = (name: string, heading: string, required: string[]) =>
  detailsTable(
    name,
    heading,
    [
      ['invoiceNumber', 'Invoice'],
      ['amount', 'Amount'],
      ['issuedAt', 'Date', 'date-time'],
      ['paymentMethod', 'Payment method'],
    ],
    required,
  );

const subscriptionDetails = (dateKey: string, dateLabel: string, required: string[] = []) =>
  detailsTable(
    'subscriptionDetails',
    'Subscription details',
    [
      ['plan', 'Plan'],
      ['amount', 'Amount'],
      [dateKey, dateLabel, 'date-time'],
    ],
    required,
  );

export const billingTemplates: TemplateDefinition[] = [
  defineTemplate('billing', 'payment-failed', 'transactional', 'Sent when a payment could not be collected', {
    subject: 'Your payment did not go through',
    preheader: 'A quick change of payment method keeps everything running.',
    heading: 'Payment failed',
    intro:
      'We could not collect your latest payment. Please update your payment method to keep your subscription active.',
    details: invoiceDetails('invoiceDetails', 'Invoice details', ['amount']),
    notice: 'We will try the payment again in a few days.',
    button: { label: 'Update payment method', isUrlRequired: true },
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate('billing', 'payment-receipt', 'transactional', 'Sent when a payment succeeds', {
    subject: 'Your receipt from {{projectName}}',
    preheader: 'Keep this email for your records.',
    heading: 'Payment received',
    intro: 'Thank you. We received your payment.',
    details: invoiceDetails('receiptDetails', 'Receipt', ['invoiceNumber', 'amount', 'issuedAt']),
    button: { label: 'View receipt' },
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate('billing', 'invoice-available', 'transactional', 'Sent when a new invoice is issued', {
    subject: 'Your invoice is available',
    preheader: 'The amount and invoice number are inside.',
    heading: 'New invoice',
    intro: 'A new invoice from {{projectName}} is ready to view.',
    details: detailsTable(
      'invoiceDetails',
      'Invoice details',
      [
        ['invoiceNumber', 'Invoice'],
        ['amount', 'Amount due'],
        ['dueAt', 'Due', 'date-time'],
      ],
      ['invoiceNumber', 'amount'],
    ),
    button: { label: 'View invoice', isUrlRequired: true },
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate('billing', 'subscription-started', 'transactional', 'Sent when a subscription begins', {
    subject: 'Your subscription has started',
    preheader: 'Welcome aboard: your {{projectName}} plan is active from today.',
    heading: 'Subscription started',
    intro: 'Thank you for subscribing to {{projectName}}. Your subscription is now active.',
    details: subscriptionDetails('renewsAt', 'Renews'),
    button: { label: 'Manage subscription' },
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate('billing', 'subscription-renewing', 'transactional', 'Sent before a subscription renews', {
    subject: 'Your subscription renews soon',
    preheader: 'Here is what will be charged, and when.',
    heading: 'Subscription renewing soon',
    intro: 'Your subscription will renew automatically. No action is needed to keep it.',
    details: subscriptionDetails('renewsAt', 'Renews', ['amount', 'renewsAt']),
    button: { label: 'Manage subscription' },
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate(
    'billing',
    'subscription-canceled',
    'transactional',
    'Sent when a subscription is canceled',
    {
      subject: 'Your subscription was canceled',
      preheader: 'You can subscribe again at any time.',
      heading: 'Subscription canceled',
      intro: 'Your subscription was canceled. You keep access until the end of the current billing period.',
      details: subscriptionDetails('endsAt', 'Access until'),
      button: { label: 'Resubscribe' },
      footerNote: BILLING_QUESTIONS,
    },
  ),
  defineTemplate('billing', 'trial-ending', 'transactional', 'Sent before a free trial ends', {
    subject: 'Your trial ends soon',
    preheader: 'Choose a plan to keep using {{projectName}}.',
    heading: 'Your trial ends soon',
    intro:
      'Your free trial of {{projectName}} ends soon. Choose a plan to keep your data and continue without interruption.',
    details: detailsTable('trialDetails', 'Trial details', [['trialEndsAt', 'Trial ends', 'date-time']]),
    button: { label: 'Choose a plan' },
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate('billing', 'trial-ended', 'transactional', 'Sent when a free trial has ended', {
    subject: 'Your trial has ended',
    preheader: 'Your data is kept; pick a plan to carry on.',
    heading: 'Your trial has ended',
    intro:
      'Your free trial of {{projectName}} has ended. Your data is kept safe; choose a plan to pick up where you left off.',
    button: { label: 'Choose a plan' },
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate('billing', 'card-expiring', 'transactional', 'Sent before the card on file expires', {
    subject: 'Your card expires soon',
    preheader: 'A new card keeps your subscription running without a gap.',
    heading: 'Your card expires soon',
    intro:
      'The card you pay for {{projectName}} with expires soon. Add a new one to avoid an interruption to your subscription.',
    details: detailsTable('cardDetails', 'Card details', [
      ['card', 'Card'],
      ['expiresAt', 'Expires'],
    ]),
    button: { label: 'Update card', isUrlRequired: true },
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate('billing', 'refund-issued', 'transactional', 'Sent when a refund is issued', {
    subject: 'Your refund has been issued',
    preheader: 'The refund is on its way to your payment method.',
    heading: 'Refund issued',
    intro: 'We issued a refund to your original payment method. It can take a few business days to appear.',
    details: detailsTable(
      'refundDetails',
      'Refund details',
      [
        ['amount', 'Amount'],
        ['invoiceNumber', 'Invoice'],
        ['refundedAt', 'Refunded', 'date-time'],
      ],
      ['amount'],
    ),
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate('billing', 'plan-changed', 'transactional', 'Sent when a subscription plan changes', {
    subject: 'Your plan was changed',
    preheader: 'Your subscription now uses a different plan.',
    heading: 'Plan changed',
    intro: 'Your subscription plan was changed.',
    details: detailsTable(
      'planDetails',
      'Plan details',
      [
        ['previousPlan', 'Previous plan'],
        ['newPlan', 'New plan'],
        ['effectiveAt', 'Effective', 'date-time'],
      ],
      ['newPlan'],
    ),
    button: { label: 'View billing' },
    footerNote: BILLING_QUESTIONS,
  }),
  defineTemplate(
    'billing',
    'usage-threshold-reached',
    'transactional',
    'Sent when usage passes a set threshold',
    {
      subject: 'You have reached a usage threshold',
      preheader: 'You may want to check your usage before the period ends.',
      heading: 'Usage threshold reached',
      intro: 'Your usage this billing period passed a threshold.',
      details: detailsTable(
        'usageDetails',
        'Usage details',
        [
          ['metric', 'Metric'],
          ['usage', 'Used'],
          ['threshold', 'Threshold'],
          ['periodEndsAt', 'Period ends', 'date-time'],
        ],
        ['metric', 'threshold'],
      ),
      button: { label: 'View usage' },
      footerNote: BILLING_QUESTIONS,
    },
  ),
];
