/** @jsxImportSource preact */
import { useState } from 'preact/hooks';
import { portalApi, type LoginMethod, type LoginRequest, type PortalZone } from '../portal-api.js';
import { hasPortalKey, useI18n } from '../portal-i18n.js';
import { fieldErrorKey, useLoad } from '../portal-load.js';
import { useNavigation, useQueryParam } from '../portal-navigation.js';
import { userBase } from '../portal-routes.js';
import { FieldError, FormMessage, Link, LoadFailed, Loading, PageCard, TextField, ZoneText } from '../portal-ui.js';

type FieldName = 'code' | 'username' | 'password' | 'acceptTerms';
type Errors = Partial<Record<FieldName | 'form', string>>;

/** Fields each method needs (and checks before sending). */
const METHOD_FIELDS: Record<LoginMethod, Array<'code' | 'username' | 'password'>> = {
  voucher: ['code'],
  local: ['username', 'password'],
  password: ['password'],
  onekey: [],
};

function loginRequest(method: LoginMethod, values: Record<'code' | 'username' | 'password', string>): LoginRequest {
  switch (method) {
    case 'voucher':
      return { method, code: values.code.trim() };
    case 'local':
      return { method, username: values.username.trim(), password: values.password };
    case 'password':
      return { method, password: values.password };
    case 'onekey':
      return { method };
  }
}

/** /auth/portal: the zone's page, one tab per allowed method, terms of service to accept. */
export function AuthPortalPage() {
  const { t } = useI18n();
  const [state, reload] = useLoad(portalApi.state);
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'failed') return <LoadFailed messageKey={state.msg} onRetry={reload} />;
  const { zone, authorized } = state.data;
  return (
    <div class="auth-portal">
      <ZoneHeader zone={zone} />
      <PageCard title={t('portal.auth.title')} testId="auth-portal">
        <ZoneText text={zone.logintext} testId="zone-logintext" />
        {authorized ? (
          <p class="message" role="status" data-testid="auth-already-online">
            {t('portal.auth.alreadyOnline')} <Link href="/auth/success">{t('portal.auth.showStatus')}</Link>
          </p>
        ) : zone.methods.length === 0 ? (
          <FormMessage messageKey="portal.auth.noMethods" kind="info" />
        ) : (
          <LoginForm zone={zone} />
        )}
      </PageCard>
      {zone.chargetext.trim() && (
        <section class="card" aria-labelledby="zone-charge-title">
          <h2 id="zone-charge-title">{t('portal.auth.charge')}</h2>
          <ZoneText text={zone.chargetext} testId="zone-chargetext" />
        </section>
      )}
      <ZoneFooter zone={zone} />
    </div>
  );
}

function ZoneHeader({ zone }: { zone: PortalZone }) {
  const { t } = useI18n();
  return (
    <div class="zone-header">
      {zone.logo && <img class="zone-logo" src={zone.logo} alt={t('portal.title')} data-testid="zone-logo" />}
      <p class="zone-welcome" data-testid="zone-welcome">
        {zone.welcome.trim() || t('portal.title')}
      </p>
      {zone.picture && <img class="zone-picture" src={zone.picture} alt="" data-testid="zone-picture" />}
    </div>
  );
}

function ZoneFooter({ zone }: { zone: PortalZone }) {
  const { t } = useI18n();
  return (
    <footer class="zone-footer">
      {zone.contact.trim() && (
        <p data-testid="zone-contact">
          {t('portal.auth.contact')}: {zone.contact}
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
  const [values, setValues] = useState({ code: '', username: '', password: '' });
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
      else if (field === 'code' || field === 'username' || field === 'password') fromServer[field] = fieldErrorKey(key, hasPortalKey);
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
      </div>
      <TermsOfService text={zone.tos} accepted={accepted} onAccepted={setAccepted} error={errors.acceptTerms} />
      {errors.form && (
        <p class="message message-error" role="alert" id="auth-form-error" data-testid="form-error">
          {t(errors.form)}
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

function TermsOfService(props: { text: string; accepted: boolean; onAccepted: (value: boolean) => void; error?: string }) {
  const { t } = useI18n();
  return (
    <fieldset class="tos" aria-describedby={props.error ? 'field-acceptTerms-error' : undefined}>
      <legend>{t('portal.auth.tosTitle')}</legend>
      {props.text.trim() && (
        <div class="tos-text" tabIndex={0} role="document" aria-label={t('portal.auth.tosTitle')} data-testid="zone-tos">
          {props.text}
        </div>
      )}
      <label class="checkbox">
        <input
          type="checkbox"
          name="acceptTerms"
          id="field-acceptTerms"
          checked={props.accepted}
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={props.error ? 'field-acceptTerms-error' : undefined}
          data-testid="field-acceptTerms"
          onChange={(event) => props.onAccepted((event.currentTarget as HTMLInputElement).checked)}
        />
        <span>{t('portal.auth.acceptTerms')}</span>
      </label>
      {props.error && <FieldError id="field-acceptTerms-error" message={t(props.error)} />}
    </fieldset>
  );
}
