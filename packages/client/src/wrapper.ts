// The wrapper client: one method per template route, `/auth/login-code` → wrapper.auth.loginCode(),
// with that template's `data` type, so a missing required field fails to compile.
import type { SendEmailResult } from './generated/core.js';
import { type WrapperRouteTemplates, wrapperRoutePaths } from './generated/wrapper.js';
import type { TemplateId, VersionedData } from './templates.js';
import { type CallOptions, type ClientOptions, newIdempotencyKey, Transport } from './transport.js';

/** The wrapper's request envelope (seed: template-route wrapper §2) for a route sending template T. */
export type WrapperSendInput<T extends TemplateId> = {
  /** The recipient, one bare address. */
  to: string;
  /** Refused unless the wrapper runs with MAILSVC_ALLOW_SENDER_OVERRIDE=true. */
  from?: string;
  fromName?: string;
  replyTo?: string;
  /** Made by the client when absent, so its retries never send twice. */
  idempotencyKey?: string;
} & VersionedData<T, 'v1' & keyof import('./generated/templates.js').TemplateData[T] & string>;

export type WrapperMethod<T extends TemplateId> = (
  input: WrapperSendInput<T>,
  options?: CallOptions,
) => Promise<SendEmailResult>;

/** `wrapper.<group>.<route>()` for every route; `data` is typed by the route's template (v1 unless `templateVersion` names another). */
export type WrapperRoutes = {
  readonly [G in keyof WrapperRouteTemplates]: {
    readonly [M in keyof WrapperRouteTemplates[G]]: WrapperMethod<WrapperRouteTemplates[G][M] & TemplateId>;
  };
};

export interface MailsvcWrapperOptions extends ClientOptions {
  /**
   * The Firebase App Check token, sent as `X-Firebase-AppCheck` when the wrapper requires it.
   * Give a function to be asked before every attempt: with replay protection on, a retry
   * needs a token of its own (e.g. `() => getLimitedUseToken(appCheck).then((t) => t.token)`).
   */
  appCheckToken?: string | (() => string | Promise<string>);
}

const camel = (s: string) => s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

class WrapperClient {
  private readonly transport: Transport;

  constructor(options: MailsvcWrapperOptions) {
    this.transport = new Transport(options);
    const { appCheckToken } = options;
    const headers = async (): Promise<Record<string, string>> => {
      if (appCheckToken === undefined) return {};
      const token = typeof appCheckToken === 'function' ? await appCheckToken() : appCheckToken;
      return { 'x-firebase-appcheck': token };
    };
    const groups: Record<string, Record<string, WrapperMethod<TemplateId>>> = {};
    for (const path of wrapperRoutePaths) {
      const [, group, name] = path.split('/') as [string, string, string];
      groups[group] ??= {};
      groups[group][camel(name)] = (input, opts = {}) => {
        const idempotencyKey = input.idempotencyKey ?? newIdempotencyKey();
        return this.transport.request<SendEmailResult>({
          method: 'POST',
          path,
          body: { ...input, idempotencyKey },
          headers,
          signal: opts.signal,
          idempotencyKey,
        });
      };
    }
    Object.assign(this, groups);
  }
}

/** The wrapper client: `new MailsvcWrapper({ baseUrl }).auth.loginCode({ to, data: { code } })`. */
export type MailsvcWrapper = WrapperClient & WrapperRoutes;
export const MailsvcWrapper = WrapperClient as unknown as new (
  options: MailsvcWrapperOptions,
) => MailsvcWrapper;
