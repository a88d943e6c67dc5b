/** @jsxImportSource preact */
import type { ComponentChildren, JSX } from 'preact';
import { useNavigation } from './portal-navigation.js';
import { useI18n } from './portal-i18n.js';

/** A link inside the portal: history navigation, no reload. */
export function Link({ href, children, testId }: { href: string; children: ComponentChildren; testId?: string }) {
  const { navigate } = useNavigation();
  return (
    <a
      href={href}
      data-testid={testId}
      onClick={(event: JSX.TargetedMouseEvent<HTMLAnchorElement>) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}

export function PageCard({ title, testId, children }: { title: string; testId: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={`${testId}-title`} data-testid={testId}>
      <h1 id={`${testId}-title`}>{title}</h1>
      {children}
    </section>
  );
}

interface TextFieldProps {
  name: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  /** An i18n key. */
  error?: string;
  type?: 'text' | 'password' | 'tel';
  autoComplete?: string;
}

export function TextField({ name, label, value, onValue, error, type = 'text', autoComplete }: TextFieldProps) {
  const { t } = useI18n();
  const id = `field-${name}`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={type}
        value={value}
        autoComplete={autoComplete}
        autoCapitalize="off"
        spellcheck={false}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        data-testid={id}
        onInput={(event: JSX.TargetedEvent<HTMLInputElement>) => onValue(event.currentTarget.value)}
      />
      {error && <FieldError id={`${id}-error`} message={t(error)} />}
    </div>
  );
}

export function FieldError({ id, message }: { id: string; message: string }) {
  return (
    <p class="field-error" id={id} data-testid={id}>
      {message}
    </p>
  );
}

/** A form-level message (an i18n key), announced to screen readers. */
export function FormMessage({ messageKey, kind = 'error' }: { messageKey?: string; kind?: 'error' | 'info' }) {
  const { t } = useI18n();
  if (!messageKey) return null;
  return (
    <p class={kind === 'error' ? 'message message-error' : 'message'} role={kind === 'error' ? 'alert' : 'status'} data-testid={`form-${kind}`}>
      {t(messageKey)}
    </p>
  );
}

/** Text from the zone settings: plain text, line breaks kept. */
export function ZoneText({ text, testId, class: className }: { text: string; testId: string; class?: string }) {
  if (!text.trim()) return null;
  return (
    <p class={className ? `zone-text ${className}` : 'zone-text'} data-testid={testId}>
      {text}
    </p>
  );
}

export function Loading() {
  const { t } = useI18n();
  return (
    <p class="message" role="status" data-testid="portal-loading">
      {t('portal.loading')}
    </p>
  );
}

export function LoadFailed({ messageKey, onRetry }: { messageKey: string; onRetry: () => void }) {
  const { t } = useI18n();
  return (
    <div>
      <FormMessage messageKey={messageKey} />
      <button type="button" class="secondary" data-testid="portal-retry" onClick={onRetry}>
        {t('portal.retry')}
      </button>
    </div>
  );
}
