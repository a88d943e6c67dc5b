/** @jsxImportSource preact */
import { useState } from 'preact/hooks';
import { portalApi, type ApiResult, type UserAccount } from '../portal-api.js';
import { formatBytes, formatDueTime } from '../portal-format.js';
import { hasPortalKey, useI18n } from '../portal-i18n.js';
import { fieldErrorKey, useLoad } from '../portal-load.js';
import { useNavigation, useQueryParam } from '../portal-navigation.js';
import { userBase } from '../portal-routes.js';
import { FormMessage, Link, LoadFailed, Loading, PageCard, TextField } from '../portal-ui.js';
import { Fact } from './auth-success-page.js';

/** Spec §5: user names are letters and digits; passwords letters and digits, 8 to 32. */
const USERNAME_PATTERN = /^[A-Za-z0-9]{1,32}$/;
const PASSWORD_PATTERN = /^[A-Za-z0-9]{8,32}$/;
const TEL_PATTERN = /^\+?[0-9][0-9 -]{2,19}$/;

type Errors = Record<string, string | undefined>;

/** Form state shared by the self-service forms: values, field errors, the server's message. */
function useForm<F extends string>(initial: Record<F, string>) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const field = (name: F) => ({
    name,
    value: values[name],
    error: errors[name],
    onValue: (value: string) => setValues((v) => ({ ...v, [name]: value })),
  });
  /** Sends when the checks pass; server field errors land on their fields. */
  const send = async <T,>(found: Errors, request: () => Promise<ApiResult<T>>, done: (data: T) => void) => {
    const present = Object.fromEntries(Object.entries(found).filter(([, v]) => v)) as Errors;
    setErrors(present);
    if (Object.keys(present).length > 0 || busy) return;
    setBusy(true);
    const result = await request();
    setBusy(false);
    if (result.ok) return done(result.data);
    const fromServer: Errors = result.fieldsOnly ? {} : { form: result.msg };
    for (const [name, key] of Object.entries(result.errors)) {
      if (name in initial) fromServer[name] = fieldErrorKey(key, hasPortalKey);
    }
    // Errors on fields this form does not show still need a message.
    if (Object.keys(fromServer).length === 0) fromServer.form = result.msg;
    setErrors(fromServer);
  };
  return { values, errors, busy, field, send };
}

const required = (value: string) => (value.trim() ? undefined : 'portal.validation.required');
const password = (value: string) => required(value) ?? (PASSWORD_PATTERN.test(value) ? undefined : 'portal.validation.passwordFormat');
const username = (value: string) => required(value) ?? (USERNAME_PATTERN.test(value.trim()) ? undefined : 'portal.validation.usernameFormat');

function useUserBase(): string {
  return userBase(useNavigation().location.pathname);
}

function SubmitButton({ label, busy, testId }: { label: string; busy: boolean; testId: string }) {
  const { t } = useI18n();
  return (
    <button type="submit" class="primary" disabled={busy} data-testid={testId}>
      {busy ? t('portal.user.working') : label}
    </button>
  );
}

/** /user/login: sign in to the self-service pages (the one place the portal sets a cookie). */
export function UserLoginPage() {
  const { t } = useI18n();
  const { navigate } = useNavigation();
  const base = useUserBase();
  const form = useForm({ username: '', password: '' });
  const submit = (event: Event) => {
    event.preventDefault();
    void form.send(
      { username: required(form.values.username), password: required(form.values.password) },
      () => portalApi.userLogin(form.values.username.trim(), form.values.password),
      () => navigate(`${base}/mgr`),
    );
  };
  return (
    <PageCard title={t('portal.user.loginTitle')} testId="user-login">
      <form class="form" noValidate onSubmit={submit} data-testid="user-login-form">
        <TextField {...form.field('username')} label={t('portal.user.username')} autoComplete="username" />
        <TextField {...form.field('password')} type="password" label={t('portal.user.password')} autoComplete="current-password" />
        <FormMessage messageKey={form.errors.form} />
        <SubmitButton label={t('portal.user.login')} busy={form.busy} testId="user-login-submit" />
        <p class="hint">{t('portal.user.cookieNote')}</p>
        <p class="links">
          <Link href={`${base}/register`}>{t('portal.user.toRegister')}</Link>
          <Link href="/auth/portal">{t('portal.user.toPortal')}</Link>
        </p>
      </form>
    </PageCard>
  );
}

/** /user/register: a new local user (name, password twice, optional phone). */
export function UserRegisterPage() {
  const { t } = useI18n();
  const { navigate } = useNavigation();
  const base = useUserBase();
  const form = useForm({ username: '', password: '', confirm: '', tel: '' });
  const submit = (event: Event) => {
    event.preventDefault();
    const { values } = form;
    void form.send(
      {
        username: username(values.username),
        password: password(values.password),
        confirm: required(values.confirm) ?? (values.confirm === values.password ? undefined : 'portal.validation.passwordMismatch'),
        tel: values.tel.trim() && !TEL_PATTERN.test(values.tel.trim()) ? 'portal.validation.invalid' : undefined,
      },
      () => portalApi.userRegister(values.username.trim(), values.password, values.tel.trim()),
      () => navigate(`${base}/mgrsuc?done=register`),
    );
  };
  return (
    <PageCard title={t('portal.user.registerTitle')} testId="user-register">
      <form class="form" noValidate onSubmit={submit} data-testid="user-register-form">
        <TextField {...form.field('username')} label={t('portal.user.username')} autoComplete="username" />
        <TextField {...form.field('password')} type="password" label={t('portal.user.password')} autoComplete="new-password" />
        <TextField {...form.field('confirm')} type="password" label={t('portal.user.confirmPassword')} autoComplete="new-password" />
        <TextField {...form.field('tel')} type="tel" label={t('portal.user.tel')} autoComplete="tel" />
        <FormMessage messageKey={form.errors.form} />
        <SubmitButton label={t('portal.user.register')} busy={form.busy} testId="user-register-submit" />
        <p class="links">
          <Link href={`${base}/login`}>{t('portal.user.toLogin')}</Link>
        </p>
      </form>
    </PageCard>
  );
}

/** /user/cpwd: change the signed-in user's password. */
export function UserChangePasswordPage() {
  const { t } = useI18n();
  const { navigate } = useNavigation();
  const base = useUserBase();
  const form = useForm({ oldPassword: '', newPassword: '', confirm: '' });
  const submit = (event: Event) => {
    event.preventDefault();
    const { values } = form;
    void form.send(
      {
        oldPassword: required(values.oldPassword),
        newPassword: password(values.newPassword),
        confirm: required(values.confirm) ?? (values.confirm === values.newPassword ? undefined : 'portal.validation.passwordMismatch'),
      },
      () => portalApi.userChangePassword(values.oldPassword, values.newPassword),
      () => navigate(`${base}/mgrsuc?done=cpwd`),
    );
  };
  return (
    <PageCard title={t('portal.user.cpwdTitle')} testId="user-cpwd">
      <form class="form" noValidate onSubmit={submit} data-testid="user-cpwd-form">
        <TextField {...form.field('oldPassword')} type="password" label={t('portal.user.oldPassword')} autoComplete="current-password" />
        <TextField {...form.field('newPassword')} type="password" label={t('portal.user.newPassword')} autoComplete="new-password" />
        <TextField {...form.field('confirm')} type="password" label={t('portal.user.confirmPassword')} autoComplete="new-password" />
        <FormMessage messageKey={form.errors.form} />
        <SubmitButton label={t('portal.user.changePassword')} busy={form.busy} testId="user-cpwd-submit" />
        <p class="links">
          <Link href={`${base}/mgr`}>{t('portal.user.toManage')}</Link>
        </p>
      </form>
    </PageCard>
  );
}

/** /user/mgr: the signed-in user's plan, due time and data. */
export function UserManagePage() {
  const { t, lang } = useI18n();
  const { navigate } = useNavigation();
  const base = useUserBase();
  const [state, reload] = useLoad(portalApi.userMe);
  const [error, setError] = useState<string>();
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'failed') {
    // Not signed in (or the session ended): the way forward is the sign-in page.
    if (state.msg === 'portal.error.network') return <LoadFailed messageKey={state.msg} onRetry={reload} />;
    return (
      <PageCard title={t('portal.user.mgrTitle')} testId="user-mgr-signin">
        <FormMessage messageKey="portal.user.signInFirst" kind="info" />
        <p class="links">
          <Link href={`${base}/login`}>{t('portal.user.login')}</Link>
        </p>
      </PageCard>
    );
  }
  const account: UserAccount = state.data;
  const unlimited = t('portal.unlimited');
  const logout = async () => {
    const result = await portalApi.userLogout();
    if (result.ok) navigate(`${base}/login`);
    else setError(result.msg);
  };
  return (
    <PageCard title={t('portal.user.mgrTitle')} testId="user-mgr">
      <dl class="facts">
        <Fact label={t('portal.user.username')} value={account.username} testId="account-username" />
        <Fact label={t('portal.user.plan')} value={account.plan || '-'} testId="account-plan" />
        <Fact label={t('portal.user.duetime')} value={formatDueTime(account.duetime, t, lang)} testId="account-duetime" />
        <Fact label={t('portal.user.totalflow')} value={account.totalflow ? formatBytes(account.totalflow) : unlimited} testId="account-totalflow" />
        <Fact label={t('portal.user.usedflow')} value={formatBytes(account.usedflow)} testId="account-usedflow" />
        <Fact
          label={t('portal.user.remainingflow')}
          value={account.totalflow ? formatBytes(Math.max(0, account.totalflow - account.usedflow)) : unlimited}
          testId="account-remainingflow"
        />
        <Fact label={t('portal.user.usernum')} value={account.usernum ? String(account.usernum) : unlimited} testId="account-usernum" />
      </dl>
      <FormMessage messageKey={error} />
      <p class="links">
        <Link href={`${base}/cpwd`} testId="account-cpwd">
          {t('portal.user.changePassword')}
        </Link>
      </p>
      <button type="button" class="secondary" onClick={logout} data-testid="account-logout">
        {t('portal.user.logout')}
      </button>
    </PageCard>
  );
}

/** /user/mgrsuc: the outcome of a registration or a password change. */
export function UserDonePage() {
  const { t } = useI18n();
  const base = useUserBase();
  const done = useQueryParam('done');
  return (
    <PageCard title={t('portal.user.mgrsucTitle')} testId="user-mgrsuc">
      {done === 'register' && <FormMessage messageKey="portal.user.registered" kind="info" />}
      {done === 'cpwd' && <FormMessage messageKey="portal.user.passwordChanged" kind="info" />}
      <p class="links">
        {done === 'register' ? (
          <Link href={`${base}/login`}>{t('portal.user.login')}</Link>
        ) : (
          <Link href={`${base}/mgr`}>{t('portal.user.toManage')}</Link>
        )}
      </p>
    </PageCard>
  );
}
