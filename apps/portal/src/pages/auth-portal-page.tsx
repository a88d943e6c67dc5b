/** @jsxImportSource preact */
import { useEffect, useRef, useState } from 'preact/hooks';
import { portalApi, type LoginMethod, type LoginRequest, type PortalZone } from '../portal-api.js';
import { hasPortalKey, useI18n } from '../portal-i18n.js';
import { fieldErrorKey, useLoad } from '../portal-load.js';
import { useNavigation, useQueryParam } from '../portal-navigation.js';
import { userBase } from '../portal-routes.js';
import { AlertIcon, PhoneIcon, WifiIcon, WifiOffIcon } from '../portal-icons.js';
import { FieldError, FormMessage, Link, Loading, TextField, ZoneText } from '../portal-ui.js';

type FieldName = 'code' | 'username' | 'password' | 'phone' | 'smsCode' | 'acceptTerms';
type ValueName = 'code' | 'username' | 'password' | 'phone' | 'smsCode';
type Errors = Partial<Record<FieldName | 'form', string>>;

/** Fields each method needs (and checks before sending). */
const METHOD_FIELDS: Record<LoginMethod, ValueName[]> = {
  voucher: ['code'],
  local: ['username', 'password'],
  password: ['password'],
  onekey: [],
  ldap: ['username', 'password'],
  sms: ['phone', 'smsCode'],
};

function loginRequest(method: LoginMethod, values: Record<ValueName, string>): LoginRequest {
  switch (method) {
    case 'voucher':
      return { method, code: values.code.trim() };
    case 'local':
      return { method, username: values.username.trim(), password: values.password };
    case 'password':
      return { method, password: values.password };
    case 'onekey':
      return { method };
    case 'ldap':
      return { method, username: values.username.trim(), password: values.password };
    case 'sms':
      return { method, phone: values.phone.trim(), code: values.smsCode.trim() };
  }
}

/**
 * The message key the gateway sent the browser back with (`?error=`) after an outside sign-in
 * (WiFiDog, cloud portal, WeChat, social login) admitted nothing. Only known portal error keys
 * are shown; any other text in the address is ignored, never echoed.
 */
export function returnedErrorKey(value: string | null): string | null {
  return value !== null && value.startsWith('portal.error.') && hasPortalKey(value) ? value : null;
}

/** /auth/portal: the venue's welcome page, one tab per allowed method, terms of service to accept. */
export function AuthPortalPage() {
  const { t } = useI18n();
  const [state, reload] = useLoad(portalApi.state);
  const returned = returnedErrorKey(useQueryParam('error'));
  if (state.status !== 'ready') {
    // The venue is not known yet (or cannot be): the banner alone, so the page does not jump.
    return (
      <div class="venue-page">
        <div class="venue-banner venue-banner-plain" />
        {state.status === 'loading' ? <Loading /> : <PortalUnavailable messageKey={state.msg} onRetry={reload} />}
      </div>
    );
  }
  const { zone, authorized } = state.data;
  return (
    <div class="venue-page">
      <VenueHeader zone={zone} />
      <section class="card login-card" aria-labelledby="auth-portal-title" data-testid="auth-portal">
        <h2 id="auth-portal-title">{t('portal.auth.title')}</h2>
        {!authorized && returned && (
          <p class="message message-error alert" role="alert" data-testid="auth-returned-error">
            <AlertIcon />
            <span>{t(returned)}</span>
          </p>
        )}
        {authorized ? (
          <p class="message" role="status" data-testid="auth-already-online">
            {t('portal.auth.alreadyOnline')} <Link href="/auth/success">{t('portal.auth.showStatus')}</Link>
          </p>
        ) : zone.methods.length === 0 ? (
          <FormMessage messageKey="portal.auth.noMethods" kind="info" />
        ) : (
          <LoginForm zone={zone} />
        )}
      </section>
      {zone.chargetext.trim() && (
        <section class="card" aria-labelledby="zone-charge-title">
          <h2 id="zone-charge-title">{t('portal.auth.charge')}</h2>
          <ZoneText text={zone.chargetext} testId="zone-chargetext" />
        </section>
      )}
      <VenueFooter zone={zone} />
    </div>
  );
}

/**
 * The page could not be shown: no service zone covers this device, or the gateway did not
 * answer. Said plainly, with what to do, instead of a bare error line.
 */
function PortalUnavailable({ messageKey, onRetry }: { messageKey: string; onRetry: () => void }) {
  const { t } = useI18n();
  const notConfigured = messageKey === 'portal.error.notConfigured';
  return (
    <section class="card status-card" aria-labelledby="portal-unavailable-title" data-testid="portal-unavailable">
      {notConfigured ? <WifiOffIcon class="status-icon" /> : <AlertIcon class="status-icon status-icon-error" />}
      <h1 id="portal-unavailable-title">{t(notConfigured ? 'portal.auth.notConfiguredTitle' : 'portal.auth.failedTitle')}</h1>
      <p class="message" role="alert" data-testid="form-error">
        {t(messageKey)}
      </p>
      <button type="button" class="secondary" data-testid="portal-retry" onClick={onRetry}>
        {t('portal.retry')}
      </button>
    </section>
  );
}

/** The venue's picture as a banner, its logo over the banner's edge, its welcome and login text. */
function VenueHeader({ zone }: { zone: PortalZone }) {
  const { t } = useI18n();
  return (
    <header class="venue-header">
      <div class={zone.picture ? 'venue-banner' : 'venue-banner venue-banner-plain'}>{zone.picture && <img class="venue-picture" src={zone.picture} alt="" data-testid="zone-picture" />}</div>
      <div class="venue-identity">
        {zone.logo ? (
          <img class="venue-logo" src={zone.logo} alt={zone.welcome.trim() || t('portal.auth.welcome')} data-testid="zone-logo" />
        ) : (
          <span class="venue-mark">
            <WifiIcon />
          </span>
        )}
        <h1 class="venue-welcome" data-testid="zone-welcome">
          {zone.welcome.trim() || t('portal.auth.welcome')}
        </h1>
        <ZoneText text={zone.logintext} testId="zone-logintext" class="venue-intro" />
      </div>
    </header>
  );
}

function VenueFooter({ zone }: { zone: PortalZone }) {
  const { t } = useI18n();
  if (!zone.contact.trim() && !zone.copyright.trim()) return null;
  return (
    <footer class="venue-footer">
      {zone.contact.trim() && (
        <p class="venue-contact" data-testid="zone-contact">
          <PhoneIcon />
          <span>
            {t('portal.auth.contact')}: {zone.contact}
          </span>
        </p>
      )}
      {zone.copyright.trim() && <p data-testid="zone-copyright">{zone.copyright}</p>}
    </footer>
  );
}

function LoginForm({ zone }: { zone: PortalZone }) {
  const { t } = useI18n();
  const { navigate, location } = useNavigation();
  const originalUrl = useQueryParam('url');
  const [method, setMethod] = useState<LoginMethod>(zone.methods[0]!);
  const [values, setValues] = useState<Record<ValueName, string>>({ code: '', username: '', password: '', phone: '', smsCode: '' });
  const [accepted, setAccepted] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const setValue = (name: keyof typeof values) => (value: string) => setValues((v) => ({ ...v, [name]: value }));

  const choose = (next: LoginMethod) => {
    setMethod(next);
    setErrors({});
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const found: Errors = {};
    for (const field of METHOD_FIELDS[method]) {
      if (!values[field].trim()) found[field] = 'portal.validation.required';
    }
    if (!accepted) found.acceptTerms = 'portal.validation.terms';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    const result = await portalApi.login(loginRequest(method, values), true);
    setBusy(false);
    if (result.ok) {
      const next = result.data.redirectUrl ?? zone.redirectUrl ?? originalUrl;
      navigate(next ? `/auth/success?url=${encodeURIComponent(next)}` : '/auth/success');
      return;
    }
    const fromServer: Errors = result.fieldsOnly ? {} : { form: result.msg };
    for (const [field, key] of Object.entries(result.errors)) {
      if (field === 'acceptTerms') fromServer.acceptTerms = 'portal.validation.terms';
      else if (field === 'code' || field === 'username' || field === 'password' || field === 'phone') fromServer[field] = fieldErrorKey(key, hasPortalKey);
    }
    // Errors on fields this form does not show still need a message.
    if (Object.keys(fromServer).length === 0) fromServer.form = result.msg;
    setErrors(fromServer);
  };

  const panelId = 'auth-method-panel';
  return (
    <form class="form" noValidate onSubmit={submit} data-testid="auth-form" aria-describedby={errors.form ? 'auth-form-error' : undefined}>
      {zone.methods.length > 1 && (
        <div class="tabs" role="tablist" aria-label={t('portal.auth.methods')}>
          {zone.methods.map((m) => (
            <button
              key={m}
              type="button"
              role="tab"
              id={`auth-tab-${m}`}
              aria-selected={m === method ? 'true' : 'false'}
              aria-controls={panelId}
              class={m === method ? 'tab tab-active' : 'tab'}
              data-testid={`auth-tab-${m}`}
              onClick={() => choose(m)}
            >
              {t(`portal.auth.method.${m}`)}
            </button>
          ))}
        </div>
      )}
      <div id={panelId} role={zone.methods.length > 1 ? 'tabpanel' : undefined} aria-labelledby={zone.methods.length > 1 ? `auth-tab-${method}` : undefined}>
        {method === 'voucher' && (
          <TextField name="code" label={t('portal.auth.code')} value={values.code} onValue={setValue('code')} error={errors.code} autoComplete="one-time-code" />
        )}
        {method === 'local' && (
          <>
            <TextField name="username" label={t('portal.auth.username')} value={values.username} onValue={setValue('username')} error={errors.username} autoComplete="username" />
            <TextField name="password" type="password" label={t('portal.auth.password')} value={values.password} onValue={setValue('password')} error={errors.password} autoComplete="current-password" />
          </>
        )}
        {method === 'password' && (
          <TextField name="password" type="password" label={t('portal.auth.sharedPassword')} value={values.password} onValue={setValue('password')} error={errors.password} autoComplete="current-password" />
        )}
        {method === 'onekey' && <p class="hint">{t('portal.auth.onekeyHint')}</p>}
        {method === 'ldap' && (
          <>
            <TextField name="username" label={t('portal.auth.username')} value={values.username} onValue={setValue('username')} error={errors.username} autoComplete="username" />
            <TextField name="password" type="password" label={t('portal.auth.password')} value={values.password} onValue={setValue('password')} error={errors.password} autoComplete="current-password" />
          </>
        )}
        {method === 'sms' && (
          <SmsCodeFields
            phone={values.phone}
            code={values.smsCode}
            onPhone={setValue('phone')}
            onCode={setValue('smsCode')}
            errors={errors}
            onErrors={(found) => setErrors(found)}
          />
        )}
      </div>
      <TermsOfService title={zone.tosTitle} text={zone.tos} accepted={accepted} onAccepted={setAccepted} error={errors.acceptTerms} />
      {errors.form && (
        <p class="message message-error alert" role="alert" id="auth-form-error" data-testid="form-error">
          <AlertIcon />
          <span>{t(errors.form)}</span>
        </p>
      )}
      <button type="submit" class="primary" disabled={busy} data-testid="auth-submit">
        {busy ? t('portal.auth.submitting') : t('portal.auth.submit')}
      </button>
      {method === 'local' && (
        <p class="links">
          <Link href={`${userBase(location.pathname)}/register`}>{t('portal.auth.register')}</Link>
          <Link href={`${userBase(location.pathname)}/login`}>{t('portal.auth.selfService')}</Link>
        </p>
      )}
    </form>
  );
}

/**
 * The phone number, a button that sends a code to it (then counts down until another may be
 * asked for), and the code received.
 */
function SmsCodeFields(props: { phone: string; code: string; onPhone: (v: string) => void; onCode: (v: string) => void; errors: Errors; onErrors: (e: Errors) => void }) {
  const { t } = useI18n();
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);
  const [wait, setWait] = useState(0);
  useEffect(() => {
    if (wait <= 0) return;
    const timer = setTimeout(() => setWait((w) => w - 1), 1000);
    return () => clearTimeout(timer);
  }, [wait]);
  const send = async () => {
    if (sending || wait > 0) return;
    if (!props.phone.trim()) {
      props.onErrors({ phone: 'portal.validation.required' });
      return;
    }
    setSending(true);
    const result = await portalApi.smsCode(props.phone.trim());
    setSending(false);
    if (result.ok) {
      setSent(true);
      setWait(result.data.resendSeconds);
      props.onErrors({});
      return;
    }
    const phoneError = result.errors.phone ? fieldErrorKey(result.errors.phone, hasPortalKey) : undefined;
    props.onErrors(phoneError ? { phone: phoneError } : { form: result.msg });
  };
  return (
    <>
      <TextField name="phone" type="tel" label={t('portal.auth.phone')} value={props.phone} onValue={props.onPhone} error={props.errors.phone} autoComplete="tel" />
      <button type="button" class="secondary" disabled={sending || wait > 0} data-testid="auth-sms-send" onClick={() => void send()}>
        {sending ? t('portal.auth.sendingCode') : wait > 0 ? t('portal.auth.resendIn', { count: wait }) : t('portal.auth.sendCode')}
      </button>
      {sent && (
        <p class="hint" role="status" data-testid="auth-sms-sent">
          {t('portal.auth.codeSent')}
        </p>
      )}
      <TextField name="smsCode" label={t('portal.auth.smsCode')} value={props.code} onValue={props.onCode} error={props.errors.smsCode} autoComplete="one-time-code" />
    </>
  );
}

/** `{{name}}` splits a translated sentence around an element put in its place. */
function aroundPlaceholder(text: string, name: string): [string, string] {
  const marker = `{{${name}}}`;
  const at = text.indexOf(marker);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + marker.length)];
}

/**
 * The acceptance box, its sentence linking to the terms. The terms open as their own sheet
 * over the form (nothing typed is lost), with the operator's title and text and an Accept button.
 */
function TermsOfService(props: { title: string; text: string; accepted: boolean; onAccepted: (value: boolean) => void; error?: string }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const hasText = props.text.trim() !== '';
  const title = props.title.trim() || t('portal.auth.tosTitle');
  const [before, after] = aroundPlaceholder(t('portal.auth.acceptTermsWith'), 'terms');
  return (
    <div class="tos" aria-describedby={props.error ? 'field-acceptTerms-error' : undefined}>
      <div class="checkbox">
        <input
          type="checkbox"
          name="acceptTerms"
          id="field-acceptTerms"
          checked={props.accepted}
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={props.error ? 'field-acceptTerms-error' : undefined}
          aria-labelledby={hasText ? 'field-acceptTerms-sentence' : undefined}
          data-testid="field-acceptTerms"
          onChange={(event) => props.onAccepted((event.currentTarget as HTMLInputElement).checked)}
        />
        {hasText ? (
          <span id="field-acceptTerms-sentence">
            <label for="field-acceptTerms">{before}</label>
            <a
              href="#terms"
              class="tos-link"
              data-testid="auth-terms-link"
              onClick={(event) => {
                event.preventDefault();
                setOpen(true);
              }}
            >
              {title}
            </a>
            {after && <label for="field-acceptTerms">{after}</label>}
          </span>
        ) : (
          <label for="field-acceptTerms">{t('portal.auth.acceptTerms')}</label>
        )}
      </div>
      {props.error && <FieldError id="field-acceptTerms-error" message={t(props.error)} />}
      {open && (
        <TermsSheet
          title={title}
          text={props.text}
          onClose={() => setOpen(false)}
          onAccept={() => {
            props.onAccepted(true);
            setOpen(false);
          }}
        />
      )}
    </div>
  );
}

function TermsSheet(props: { title: string; text: string; onClose: () => void; onAccept: () => void }) {
  const { t } = useI18n();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus?.();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') props.onClose();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  return (
    <div class="sheet-backdrop" data-testid="auth-terms">
      <div class="sheet" role="dialog" aria-modal="true" aria-labelledby="auth-terms-title">
        <h2 id="auth-terms-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h2>
        <div class="sheet-body" data-testid="zone-tos">
          {props.text}
        </div>
        <div class="sheet-actions">
          <button type="button" class="secondary" data-testid="auth-terms-close" onClick={props.onClose}>
            {t('portal.auth.tosClose')}
          </button>
          <button type="button" class="primary" data-testid="auth-terms-accept" onClick={props.onAccept}>
            {t('portal.auth.tosAccept')}
          </button>
        </div>
      </div>
    </div>
  );
}
